import { Inject, Injectable } from '@nestjs/common';
import { InjectThrottlerStorage } from '@nestjs/throttler';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { endpointOf, Request } from '../common/request';
import type { ApiKeyPrincipal, Principal } from '../common/principal';
import { PlanLimits, PlanLimitsService } from '../plans/plan-limits.service';
import type { CounterStorage, WindowPeek } from './counter-storage';
import { RateLimitState, toRateLimitState } from '../common/rate-limit-headers';

export const WINDOW_MS = 60_000;

/**
 * Who is counted and against which allowance (docs/API.md, "Rate limits"): an API key against its plan's
 * apiRequestsPerMinute, a user against managementRequestsPerMinute, anyone else per client IP.
 */
@Injectable()
export class RateLimitService {
  /** Principal → endpoint → counter key (see counterKeyOf). */
  private readonly counterKeys = new WeakMap<Principal, Map<string, string>>();

  constructor(
    @InjectThrottlerStorage() private readonly storage: CounterStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly plans: PlanLimitsService,
  ) {}

  /**
   * The counter a request counts against: its tracker (key / user / IP) and endpoint. For a
   * principal the string is made once per endpoint and reused (principals are cached objects), so
   * the counter's map finds it without hashing a new string on every request.
   */
  counterKeyOf(req: Request): string {
    const p = req.user;
    if (p === null || p === undefined) return this.ipCounterKeyOf(req);
    const endpoint = endpointOf(req);
    let keys = this.counterKeys.get(p);
    if (keys === undefined) this.counterKeys.set(p, (keys = new Map<string, string>()));
    let key = keys.get(endpoint);
    if (key === undefined) keys.set(endpoint, (key = `${p.kind === 'apiKey' ? `key:${p.keyId}` : `user:${p.userId}`}|${endpoint}`));
    return key;
  }

  /** The counter of the request's client IP and endpoint (requests without a known principal). */
  private ipCounterKeyOf(req: Request): string {
    return `ip:${req.ip}|${endpointOf(req)}`;
  }

  /**
   * Counts a widget request against its visitor — client IP, per key and endpoint — with the
   * allowance WIDGET_VISITOR_PER_MINUTE (docs/API.md, "Rate limits").
   */
  hitVisitor(req: Request): Promise<RateLimitState> {
    const key = req.user as ApiKeyPrincipal;
    return this.hit(`visitor:${req.ip}|${key.keyId}|${endpointOf(req)}`, this.config.limits.widgetVisitorPerMinute);
  }

  /** The request's allowance per minute; synchronous when the account's plan is cached (the warm path). */
  limitOf(req: Request): number | Promise<number> {
    const p = req.user;
    if (p === null || p === undefined) return this.config.limits.anonymousPerMinute;
    const pick = (limits: PlanLimits) => (p.kind === 'apiKey' ? limits.apiRequestsPerMinute : limits.managementRequestsPerMinute);
    const cached = this.plans.cached(p.accountId);
    return cached !== undefined ? pick(cached) : this.plans.limitsFor(p.accountId).then(pick);
  }

  hit(key: string, limit: number, windowMs = WINDOW_MS): Promise<RateLimitState> {
    return this.storage.increment(key, windowMs, limit, windowMs, 'default').then((record) => toRateLimitState(limit, record));
  }

  peek(key: string): Promise<WindowPeek> {
    return this.storage.peek(key);
  }

  /** For answers given before any guard ran (unknown routes, unparsable bodies). */
  hitAnonymous(req: Request): Promise<RateLimitState> {
    return this.hit(this.ipCounterKeyOf(req), this.config.limits.anonymousPerMinute);
  }
}

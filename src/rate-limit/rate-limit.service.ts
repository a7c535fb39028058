import { Inject, Injectable } from '@nestjs/common';
import { InjectThrottlerStorage } from '@nestjs/throttler';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { endpointOf, Request } from '../common/request';
import { PlanLimits, PlanLimitsService } from '../plans/plan-limits.service';
import type { CounterStorage, WindowPeek } from './counter-storage';
import { RateLimitState, toRateLimitState } from './rate-limit-state';

export const WINDOW_MS = 60_000;

/**
 * Who is counted and against which allowance (PRODUCT.md §5): an API key against its plan's
 * apiRequestsPerMinute, a user against managementRequestsPerMinute, anyone else per client IP.
 */
@Injectable()
export class RateLimitService {
  constructor(
    @InjectThrottlerStorage() private readonly storage: CounterStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly plans: PlanLimitsService,
  ) {}

  trackerOf(req: Request): string {
    const p = req.user;
    if (p?.kind === 'apiKey') return `key:${p.keyId}`;
    if (p?.kind === 'user') return `user:${p.userId}`;
    return `ip:${req.ip}`;
  }

  keyOf(req: Request, tracker: string): string {
    return `${tracker}|${endpointOf(req)}`;
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
  async hitAnonymous(req: Request): Promise<RateLimitState> {
    return this.hit(this.keyOf(req, `ip:${req.ip}`), this.config.limits.anonymousPerMinute);
  }
}

import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { RateLimitState, writeRateLimitHeaders } from '../common/rate-limit-headers';
import { endpointOf, type Reply, type Request } from '../common/request';
import { RateLimitService } from './rate-limit.service';
import { RefusalLog } from './refusal-log';
import { Metrics } from '../metrics/metrics';

/**
 * The limiter's refusal, one for every 429: it carries nothing of the request (the headers are
 * written here, the body by the exception filter), and constructing an Error costs ~4k
 * instructions even without a stack trace (docs/PERFORMANCE.md, "A cheap 429").
 */
const RATE_LIMITED: AppError = Object.freeze(new AppError('rate_limit_exceeded'));

/**
 * Counts a request against its allowance (docs/API.md, "Rate limits"): the tracker (key / user /
 * IP), the endpoint (method + route template), the plan's per-minute limit, every rate-limit header
 * on allowed and refused requests alike. The AccessGuard calls it between authentication and
 * authorisation, so the tracker is the authenticated principal, else the client IP. The counters
 * are @nestjs/throttler's storage (memory, or Redis shared by every instance).
 */
@Injectable()
export class RateLimiter {
  constructor(
    private readonly rateLimits: RateLimitService,
    private readonly refusals: RefusalLog,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Counts the request, writes its headers, refuses it over the limit, else answers `next()`. One
   * promise chain — the counter's answer, then this — so a caller continues in its reaction instead
   * of chaining another promise (docs/PERFORMANCE.md, "Synchronous verdicts for cached keys").
   */
  count<T>(req: Request, reply: Reply, next: () => T, perVisitor = false): Promise<T> {
    const state = perVisitor ? this.hitVisitorThenPrincipal(req) : this.hitPrincipal(req);
    return state.then((s) => {
      req.rateLimit = s;
      writeRateLimitHeaders(reply, s);
      const p = req.user;
      this.metrics.rateLimitDecision(p === null ? 'ip' : p.kind, s.exceeded);
      if (s.exceeded) {
        if (p?.kind === 'apiKey') this.refusals.note(p.keyId, p.accountId, endpointOf(req), s.limit);
        throw RATE_LIMITED;
      }
      return next();
    });
  }

  private hitPrincipal(req: Request): Promise<RateLimitState> {
    const limit = this.rateLimits.limitOf(req);
    const key = this.rateLimits.counterKeyOf(req);
    return typeof limit === 'number' ? this.rateLimits.hit(key, limit) : limit.then((l) => this.rateLimits.hit(key, l));
  }

  /**
   * The visitor's counter first: a visitor over its limit is refused without counting against the
   * key, so one bot cannot spend a site's allowance. The headers show whichever leaves less.
   */
  private hitVisitorThenPrincipal(req: Request): Promise<RateLimitState> {
    return this.rateLimits
      .hitVisitor(req)
      .then((visitor) =>
        visitor.exceeded ? visitor : this.hitPrincipal(req).then((key) => (visitor.remaining < key.remaining ? visitor : key)),
      );
  }
}

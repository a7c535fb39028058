import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerModuleOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import { THROTTLER_SKIP } from '@nestjs/throttler/dist/throttler.constants';
import { AppError } from '../common/errors/app-error';
import { perRoute } from '../common/per-route';
import type { Reply, Request } from '../common/request';
import { RateLimitState, writeRateLimitHeaders } from './rate-limit-state';
import { RateLimitService } from './rate-limit.service';

/**
 * The limiter's refusal, one for every 429: it carries nothing of the request (the headers are
 * written here, the body by the exception filter), and constructing an Error costs ~4k
 * instructions even without a stack trace (docs/PERFORMANCE.md, "A cheap 429").
 */
const RATE_LIMITED = Object.freeze(new AppError('rate_limit_exceeded'));

/**
 * @nestjs/throttler's guard with our tracker (key / user / IP), endpoint (method + route template),
 * per-plan limit, every rate-limit header (docs/API.md, "Rate limits") on allowed and refused requests alike, and the
 * documented 429 body. The AccessGuard calls it between authentication and authorisation, so the
 * tracker is the authenticated principal, else the client IP.
 *
 * One throttler ("default", the plan's per-minute window). The route's `@SkipThrottle()` is read
 * once per handler instead of the base class's six reflector look-ups and three awaits per request
 * (docs/BENCHMARKS.md); `@Throttle()` limits are not used — limits come from the plan
 * (docs/API.md, "Rate limits").
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  /** `@SkipThrottle()` of the route, for our one throttler. */
  readonly isSkipped = perRoute(
    (handler, controller) =>
      this.reflector.getAllAndOverride<boolean | undefined>(THROTTLER_SKIP + this.throttler.name, [
        handler as () => void,
        controller as () => void,
      ]) === true,
  );

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly rateLimits: RateLimitService,
  ) {
    super(options, storage, reflector);
  }

  private get throttler() {
    return this.throttlers[0];
  }

  /** The throttler's guard contract, should the guard be used on its own: the same counting. */
  override canActivate(context: ExecutionContext): Promise<boolean> {
    return this.isSkipped(context) ? Promise.resolve(true) : this.count(context, () => true);
  }

  /**
   * Counts the request, writes its headers, refuses it over the limit, else answers `next()`. One
   * promise chain — the counter's answer, then this — so a caller continues in its reaction instead
   * of chaining another promise (docs/PERFORMANCE.md, "Synchronous verdicts for cached keys").
   */
  count<T>(context: ExecutionContext, next: () => T, perVisitor = false): Promise<T> {
    // The HTTP arguments straight: switchToHttp() assigns three methods to the context per call.
    const req = context.getArgByIndex<Request>(0);
    const reply = context.getArgByIndex<Reply>(1);
    const state = perVisitor ? this.hitVisitorThenPrincipal(req) : this.hitPrincipal(req);
    return state.then((s) => {
      req.rateLimit = s;
      writeRateLimitHeaders(reply, s);
      if (s.exceeded) throw RATE_LIMITED;
      return next();
    });
  }

  private hitPrincipal(req: Request): Promise<RateLimitState> {
    const limit = this.rateLimits.limitOf(req);
    const key = this.rateLimits.counterKeyOf(req);
    const ttl = this.throttler.ttl as number;
    return typeof limit === 'number' ? this.rateLimits.hit(key, limit, ttl) : limit.then((l) => this.rateLimits.hit(key, l, ttl));
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

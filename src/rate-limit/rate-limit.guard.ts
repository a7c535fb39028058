import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerModuleOptions,
  ThrottlerRequest,
  ThrottlerStorage,
} from '@nestjs/throttler';
import { THROTTLER_SKIP } from '@nestjs/throttler/dist/throttler.constants';
import { AppError } from '../common/errors/app-error';
import { perRoute } from '../common/per-route';
import type { Reply, Request } from '../common/request';
import { writeRateLimitHeaders } from './rate-limit-state';
import { RateLimitService } from './rate-limit.service';

/**
 * @nestjs/throttler's guard with our tracker (key / user / IP), endpoint (method + route template),
 * per-plan limit, every header of PRODUCT.md §5 on allowed and refused requests alike, and the
 * documented 429 body. Runs after authentication, which never throws (see AuthenticationGuard).
 *
 * One throttler ("default", the plan's per-minute window). `canActivate` reads the route's
 * `@SkipThrottle()` once per handler instead of the base class's six reflector look-ups and three
 * awaits per request (docs/BENCHMARKS.md); `@Throttle()` limits are not used — limits come from
 * the plan (PRODUCT.md §5).
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  /** `@SkipThrottle()` of the route, for our one throttler. */
  private readonly isSkipped = perRoute(
    (handler, controller) =>
      this.reflector.getAllAndOverride<boolean | undefined>(THROTTLER_SKIP + this.throttler.name, [handler as () => void, controller as () => void]) === true,
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

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isSkipped(context)) return true;
    const throttler = this.throttler;
    return this.handleRequest({
      context,
      limit: 0, // the plan's, read in handleRequest
      ttl: throttler.ttl as number,
      blockDuration: throttler.ttl as number,
      throttler,
      // Not called: handleRequest takes tracker and key from RateLimitService, synchronously.
      getTracker: this.commonOptions.getTracker!,
      generateKey: this.commonOptions.generateKey!,
    });
  }

  protected override async handleRequest({ context, ttl }: ThrottlerRequest): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const limit = this.rateLimits.limitOf(req);
    const key = this.rateLimits.keyOf(req, this.rateLimits.trackerOf(req));
    const state = await this.rateLimits.hit(key, typeof limit === 'number' ? limit : await limit, ttl);
    req.rateLimit = state;
    writeRateLimitHeaders(http.getResponse<Reply>(), state);
    if (state.exceeded) throw new AppError('rate_limit_exceeded');
    return true;
  }
}

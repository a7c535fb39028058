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
import { AppError } from '../common/errors/app-error';
import type { Reply, Request } from '../common/request';
import { writeRateLimitHeaders } from './rate-limit-state';
import { RateLimitService } from './rate-limit.service';

/**
 * @nestjs/throttler's guard with our tracker (key / user / IP), endpoint (method + route template),
 * per-plan limit, every header of PRODUCT.md §5 on allowed and refused requests alike, and the
 * documented 429 body. Runs after authentication, which never throws (see AuthenticationGuard).
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly rateLimits: RateLimitService,
  ) {
    super(options, storage, reflector);
  }

  protected override getTracker(req: Request): Promise<string> {
    return Promise.resolve(this.rateLimits.trackerOf(req));
  }

  protected override generateKey(context: ExecutionContext, tracker: string): string {
    return this.rateLimits.keyOf(context.switchToHttp().getRequest<Request>(), tracker);
  }

  protected override async handleRequest({ context, ttl, getTracker, generateKey, throttler }: ThrottlerRequest): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const limit = await this.rateLimits.limitOf(req);
    const key = generateKey(context, await getTracker(req, context), throttler.name ?? 'default');
    const state = await this.rateLimits.hit(key, limit, ttl);
    req.rateLimit = state;
    writeRateLimitHeaders(http.getResponse<Reply>(), state);
    if (state.exceeded) throw new AppError('rate_limit_exceeded');
    return true;
  }
}

import { Global, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Metrics } from '../metrics/metrics';
import { PlansModule } from '../plans/plans.module';
import type { CounterStorage } from './counter-storage';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { RateLimiter } from './rate-limiter';
import { RateLimitService, WINDOW_MS } from './rate-limit.service';
import { RedisThrottlerStorage } from './redis-throttler.storage';
import { RefusalLog } from './refusal-log';

function createStorage(config: AppConfig, metrics: Metrics): CounterStorage {
  const memory = new MemoryThrottlerStorage();
  return config.redis === undefined
    ? memory
    : new RedisThrottlerStorage(config.redis, memory, 250, `${config.redisKeyPrefix}rl:`, metrics.redisCall('rate-limit-batch'));
}

/**
 * The counters behind every rate limit: @nestjs/throttler's storage (ours, in memory or Redis),
 * provided by its module; RateLimiter and RateLimitService count with it. The throttler's own
 * guard is not used: limits come from the account's plan per request.
 */
@Global()
@Module({
  imports: [
    PlansModule,
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, Metrics],
      useFactory: (config: AppConfig, metrics: Metrics) => ({
        throttlers: [{ name: 'default', ttl: WINDOW_MS, limit: 1 }],
        storage: createStorage(config, metrics),
      }),
    }),
  ],
  providers: [RateLimitService, RateLimiter, RefusalLog],
  exports: [RateLimitService, RateLimiter, RefusalLog, ThrottlerModule],
})
export class RateLimitModule {}

import { Global, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { PlansModule } from '../plans/plans.module';
import type { CounterStorage } from './counter-storage';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimitService, WINDOW_MS } from './rate-limit.service';
import { RedisThrottlerStorage } from './redis-throttler.storage';

function createStorage(config: AppConfig): CounterStorage {
  const memory = new MemoryThrottlerStorage();
  return config.redisUrl === undefined ? memory : new RedisThrottlerStorage(config.redisUrl, memory, 250, `${config.redisKeyPrefix}rl:`);
}

@Global()
@Module({
  imports: [
    PlansModule,
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG],
      // The limit here is a placeholder: RateLimitGuard reads the plan's limit per request.
      useFactory: (config: AppConfig) => ({ throttlers: [{ name: 'default', ttl: WINDOW_MS, limit: 1 }], storage: createStorage(config) }),
    }),
  ],
  providers: [RateLimitService, RateLimitGuard],
  exports: [RateLimitService, RateLimitGuard, ThrottlerModule],
})
export class RateLimitModule {}

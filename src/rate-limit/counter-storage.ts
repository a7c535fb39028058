import type { ThrottlerStorage } from '@nestjs/throttler';

/** What the throttler's storage answers for a hit (its record type is not exported by the package). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

export interface WindowPeek {
  readonly hits: number;
  /** Seconds until the window ends; 0 when there is none. */
  readonly timeToExpire: number;
}

/** The throttler's storage plus a look without a hit (for the login lockout). */
export interface CounterStorage extends ThrottlerStorage {
  peek(key: string): Promise<WindowPeek>;
  /** Where counts go now: this process, Redis, or this process because Redis does not answer. */
  status(): 'memory' | 'redis' | 'redis-unreachable';
}

import type Redis from 'ioredis';

/**
 * Resolves once `redis` is ready, has failed its first connection attempt, or after `maxMs`,
 * whichever comes first; never rejects. An instance waits this long for Redis at start and no
 * longer: a Redis that is down must not keep the API from starting (ioredis keeps reconnecting).
 * `events.once(redis, 'ready')` rejects on the first 'error' (ECONNREFUSED), which failed the start.
 */
export function firstConnectionAttempt(redis: Redis, maxMs = 2000): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, maxMs);
    timer.unref();
    redis.once('ready', done);
    redis.once('error', done);
  });
}

import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import type { CounterStorage, WindowPeek } from './counter-storage';
import Redis from 'ioredis';
import { MemoryThrottlerStorage } from './memory-throttler.storage';

/** INCR and set the window's expiry in one atomic round trip; returns [hits, ms left]. */
const HIT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {hits, ttl}
`;

const PEEK_SCRIPT = `return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}`;

const PROBE_INTERVAL_MS = 1000;

type RedisWithHit = Redis & {
  gatehouseHit(key: string, ttlMs: number): Promise<[number, number]>;
  gatehousePeek(key: string): Promise<[number, number]>;
};

/**
 * Fixed windows shared by every instance. ioredis sends the script by EVALSHA (EVAL once, when
 * Redis does not know it yet). When Redis does not answer within `commandTimeoutMs`, the hit is
 * counted in this process instead and a warning is logged. While Redis is down, one request a
 * second probes it and the others count locally without waiting, so a dead or frozen Redis costs
 * at most one timeout a second; shared limits resume with the first probe that succeeds.
 */
export class RedisThrottlerStorage implements CounterStorage, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RedisThrottlerStorage.name);
  private readonly redis: RedisWithHit;
  private degradedSince: number | null = null;
  private probeAt = 0;

  constructor(
    url: string,
    private readonly fallback: MemoryThrottlerStorage,
    commandTimeoutMs = 250,
    private readonly prefix = 'gatehouse:rl:',
  ) {
    this.redis = new Redis(url, {
      commandTimeout: commandTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: false,
      retryStrategy: (times) => Math.min(times * 100, 2000),
    }) as RedisWithHit;
    this.redis.on('error', () => undefined); // reported through degrade(), once per outage
    this.redis.defineCommand('gatehouseHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.redis.defineCommand('gatehousePeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
  }

  /** Count in Redis from the first request; a Redis that is down delays the start by 2 s at most. */
  async onModuleInit(): Promise<void> {
    if (this.redis.status !== 'ready') await Promise.race([once(this.redis, 'ready'), sleep(2000, undefined, { ref: false })]);
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    if (!this.tryRedis()) return this.fallback.hit(key, ttl, limit);
    try {
      const [hits, pttl] = await this.redis.gatehouseHit(this.prefix + key, ttl);
      if (this.degradedSince !== null) this.recover();
      const timeToExpire = Math.ceil(pttl / 1000);
      const isBlocked = hits > limit;
      return { totalHits: hits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 };
    } catch (err) {
      this.degrade(err as Error);
      return this.fallback.hit(key, ttl, limit);
    }
  }

  async peek(key: string): Promise<WindowPeek> {
    if (!this.tryRedis()) return this.fallback.peekSync(key);
    try {
      const [hits, pttl] = await this.redis.gatehousePeek(this.prefix + key);
      if (this.degradedSince !== null) this.recover();
      return { hits, timeToExpire: pttl > 0 ? Math.ceil(pttl / 1000) : 0 };
    } catch (err) {
      this.degrade(err as Error);
      return this.fallback.peekSync(key);
    }
  }

  /** Healthy: always. Degraded: one probe per PROBE_INTERVAL_MS, the rest stay local. */
  private tryRedis(): boolean {
    if (this.degradedSince === null) return true;
    const now = Date.now();
    if (now < this.probeAt) return false;
    this.probeAt = now + PROBE_INTERVAL_MS;
    return true;
  }

  private degrade(err: Error): void {
    this.probeAt = Date.now() + PROBE_INTERVAL_MS;
    if (this.degradedSince !== null) return;
    this.degradedSince = Date.now();
    this.logger.warn(`Redis unavailable (${err.message}); rate limits are per instance until it answers again`);
  }

  private recover(): void {
    this.logger.warn(`Redis answers again after ${Date.now() - (this.degradedSince ?? Date.now())} ms; rate limits are shared again`);
    this.degradedSince = null;
  }

  /** Shared counting, or local while Redis does not answer. */
  status(): 'redis' | 'redis-unreachable' {
    return this.degradedSince === null ? 'redis' : 'redis-unreachable';
  }

  /** After the server closed: in-flight requests still count in Redis. */
  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}

import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { CounterStorage, ThrottlerStorageRecord, WindowPeek } from './counter-storage';
import { connectRedis, firstConnectionAttempt, RedisClient, RedisTarget } from '../common/redis-client';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { TurnBatch } from './turn-batch';

/**
 * For each key: INCR, and set the window's expiry when it is new; all in one atomic call. KEYS are
 * the counters, ARGV[i] the window (ms) of KEYS[i]; returns hits and ms left for each key in turn.
 */
const HIT_SCRIPT = `
local out = {}
for i = 1, #KEYS do
  local hits = redis.call('INCR', KEYS[i])
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[i], ARGV[i])
    ttl = tonumber(ARGV[i])
  end
  out[2 * i - 1] = hits
  out[2 * i] = ttl
end
return out
`;

const PEEK_SCRIPT = `return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}`;

const PROBE_INTERVAL_MS = 1000;
/** Hits sent in one script call at most; a larger batch goes as several calls. */
const MAX_BATCH = 256;

type RedisWithHit = RedisClient & {
  /** `gatehouseHit(n, key1…keyN, ttl1…ttlN)` → [hits1, ms1, hits2, ms2, …] */
  gatehouseHit(...args: (string | number)[]): Promise<number[]>;
  gatehousePeek(key: string): Promise<[number, number]>;
};

/** The tracker of a counter key `tracker|endpoint…`: the part before the first `|`. */
function hashTagOf(key: string): string {
  const bar = key.indexOf('|');
  return bar < 0 ? key : key.slice(0, bar);
}

interface PendingHit {
  readonly key: string;
  readonly ttl: number;
  readonly limit: number;
  readonly resolve: (record: ThrottlerStorageRecord) => void;
}

/** A window Redis refused a hit in: its count then, and when it ends at the latest. */
interface KnownRefusal {
  readonly hits: number;
  readonly endsAt: number;
}

/**
 * Fixed windows shared by every instance. The hits asked for in one turn of the event loop go to
 * Redis together, as one call of an atomic script (ioredis sends it by EVALSHA; EVAL once, when
 * Redis does not know it yet): one socket write and one read for all the requests that arrived
 * together, where a call per hit cost a write per request (docs/PERFORMANCE.md, "Redis: one call per loop turn, none for refused keys"). A hit waits at
 * most one turn of the loop for its batch. On a Redis Cluster, whose commands' keys must share a slot,
 * a turn's hits go as one call per tracker (the keys' hash tag) instead, to the primary owning it.
 *
 * When Redis does not answer within `commandTimeoutMs`, the hits are counted in this process
 * instead and a warning is logged. While Redis is down, one request a second probes it and the
 * others count locally without waiting, so a dead or frozen Redis costs at most one timeout a
 * second; shared limits resume with the first probe that succeeds.
 *
 * Once Redis has refused a key's hit, the key's later hits in the same window are refused here
 * without asking Redis, as long as the count Redis gave is still at or over the limit: within a
 * window the count only grows, so Redis would refuse them too, and a client hammering over its
 * limit costs no Redis traffic (docs/DECISIONS.md). The window's end is taken from when the batch
 * was sent, so it never outlasts Redis's; a raised limit goes to Redis again at once.
 */
export class RedisThrottlerStorage implements CounterStorage, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RedisThrottlerStorage.name);
  private readonly redis: RedisWithHit;
  private degradedSince: number | null = null;
  private probeAt = 0;
  /** Keys Redis refused a hit for, until their window ends (swept every minute). */
  private readonly refused = new Map<string, KnownRefusal>();
  private readonly sweeper: NodeJS.Timeout;
  /** The hits asked for in this turn of the event loop, sent together after I/O polling. */
  private readonly hits = new TurnBatch<PendingHit>((hits) => this.flush(hits));

  private readonly cluster: boolean;

  constructor(
    target: RedisTarget,
    private readonly fallback: MemoryThrottlerStorage,
    commandTimeoutMs = 250,
    private readonly prefix = 'gatehouse:rl:',
    /** Where each batch's round trip is observed (the metrics' Redis call latency). */
    private readonly timed?: { observe(seconds: number): void },
  ) {
    this.cluster = target.cluster;
    this.redis = connectRedis(target, {
      commandTimeout: commandTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(times * 100, 2000),
    }) as RedisWithHit;
    this.redis.on('error', () => undefined); // reported through degrade(), once per outage
    this.redis.defineCommand('gatehouseHit', { lua: HIT_SCRIPT }); // number of keys given per call
    this.redis.defineCommand('gatehousePeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  /**
   * Count in Redis from the first request. A Redis that is down delays the start by 2 s at most:
   * the instance starts counting locally and probes Redis once a second, like in any outage.
   */
  async onModuleInit(): Promise<void> {
    await firstConnectionAttempt(this.redis);
    if (this.redis.status !== 'ready') this.degrade(new Error(`not connected at start (${this.redis.status})`));
  }

  increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    if (!this.tryRedis()) return this.fallback.increment(key, ttl, limit);
    return new Promise((resolve) => this.hits.add({ key, ttl, limit, resolve }));
  }

  /** Answers the hits of a key Redis already refused in this window; sends the others. */
  private flush(hits: PendingHit[]): void {
    const now = Date.now();
    const batches = new Map<string, PendingHit[]>();
    for (const hit of hits) {
      const refusal = this.refused.size === 0 ? undefined : this.refused.get(hit.key);
      if (refusal !== undefined && refusal.endsAt > now && refusal.hits >= hit.limit) {
        const timeToExpire = Math.ceil((refusal.endsAt - now) / 1000);
        hit.resolve({ totalHits: refusal.hits + 1, timeToExpire, isBlocked: true, timeToBlockExpire: timeToExpire });
        continue;
      }
      // One server takes any keys in one call; a cluster only keys of one slot: one call per hash tag.
      const group = this.cluster ? hashTagOf(hit.key) : '';
      const batch = batches.get(group);
      if (batch === undefined) batches.set(group, [hit]);
      else if (batch.length === MAX_BATCH - 1) {
        batch.push(hit);
        void this.send(batch, now);
        batches.delete(group);
      } else batch.push(hit);
    }
    for (const batch of batches.values()) void this.send(batch, now);
  }

  private async send(batch: PendingHit[], sentAt: number): Promise<void> {
    let replies: number[];
    try {
      const args: (string | number)[] = [batch.length];
      for (const hit of batch) args.push(this.redisKey(hit.key));
      for (const hit of batch) args.push(hit.ttl);
      const started = performance.now();
      replies = await this.redis.gatehouseHit(...args);
      this.timed?.observe((performance.now() - started) / 1000);
      if (this.degradedSince !== null) this.recover();
    } catch (err) {
      this.degrade(err as Error);
      for (const hit of batch) hit.resolve(this.fallback.hit(hit.key, hit.ttl, hit.limit));
      return;
    }
    batch.forEach((hit, i) => {
      const hits = replies[2 * i];
      const timeToExpire = Math.ceil(replies[2 * i + 1] / 1000);
      const isBlocked = hits > hit.limit;
      if (isBlocked) this.refused.set(hit.key, { hits, endsAt: sentAt + replies[2 * i + 1] });
      hit.resolve({ totalHits: hits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 });
    });
  }

  async peek(key: string): Promise<WindowPeek> {
    if (!this.tryRedis()) return this.fallback.peekSync(key);
    try {
      const [hits, pttl] = await this.redis.gatehousePeek(this.redisKey(key));
      if (this.degradedSince !== null) this.recover();
      return { hits, timeToExpire: pttl > 0 ? Math.ceil(pttl / 1000) : 0 };
    } catch (err) {
      this.degrade(err as Error);
      return this.fallback.peekSync(key);
    }
  }

  /**
   * `prefix{tracker}|endpoint…`: the counter's tracker (`key:<id>`, `user:<id>`, `visitor:<ip>`) is
   * its hash tag, so on a Redis Cluster all of one tracker's counters live in one slot, and one
   * script call can count them together (docs/DECISIONS.md, "Rate-limit counters on a Redis Cluster").
   */
  private redisKey(key: string): string {
    const tag = hashTagOf(key);
    return `${this.prefix}{${tag}}${key.slice(tag.length)}`;
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

  private sweep(): void {
    const now = Date.now();
    for (const [key, refusal] of this.refused) if (refusal.endsAt <= now) this.refused.delete(key);
  }

  /** After the server closed: in-flight requests still count in Redis. */
  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
    this.redis.disconnect();
  }
}

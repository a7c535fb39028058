import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { connectRedis, firstConnectionAttempt, RedisClient } from '../common/redis-client';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Metrics } from '../metrics/metrics';
import {
  CACHE_REFRESH_MS,
  CacheableValue,
  EMBEDDED_CACHE_REFRESH_MS,
  ReadThroughCache,
  ReadThroughCacheOptions,
} from './read-through-cache';

/** What a cache entry is keyed by: a user id, an API-key hash, an account id (its plan). */
export type CacheTopic = 'user' | 'apiKeyHash' | 'account';

interface Message {
  readonly origin: string;
  /** Per origin: the same message comes through both channels, and is applied once. */
  readonly seq: number;
  readonly topic: CacheTopic;
  readonly ids: readonly string[];
}

/** Ids per message: a NOTIFY payload must stay under 8000 bytes (100 key hashes are ~6.7 kB). */
const IDS_PER_MESSAGE = 100;
/** Pause before the PostgreSQL listener connects again after losing its connection. */
const RELISTEN_MS = 1000;

/**
 * Drops cache entries on every instance: at once on this one, and on the others through every
 * channel they share — PostgreSQL LISTEN/NOTIFY when DATABASE_URL is set, Redis pub/sub when
 * REDIS_URL is. Either channel alone suffices, so a Redis outage delays nothing: every change
 * that invalidates was just written to PostgreSQL, which is therefore up. The embedded database
 * needs no channel: one process opens it. A message lost on both (the listener reconnecting) is
 * covered by the caches' refresh (ReadThroughCache, 30 s; 10 min on the embedded database).
 * Caches are made with `cache`; code that changes what they hold calls `invalidate`.
 */
@Injectable()
export class CacheInvalidation implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(CacheInvalidation.name);
  private readonly local = new EventEmitter();
  private readonly origin = randomUUID();
  private readonly channel: string;
  /** A plain identifier whatever REDIS_KEY_PREFIX holds (a NOTIFY channel is an identifier of ≤ 63 bytes). */
  private readonly pgChannel: string;
  private seq = 0;
  /** `origin:seq` of the messages applied lately; cleared when large (a repeat then costs a re-read). */
  private readonly seen = new Set<string>();
  private publisher?: RedisClient;
  private subscriber?: RedisClient;
  private listener?: Client;
  private listenerLost = false;
  private relisten?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    this.channel = `${config.redisKeyPrefix}invalidate`;
    this.pgChannel = `gatehouse_invalidate_${createHash('sha256').update(config.redisKeyPrefix).digest('hex').slice(0, 32)}`;
    this.local.setMaxListeners(20);
  }

  /** Both channels at once; neither holds up the start for long when its server is down. */
  async onModuleInit(): Promise<void> {
    await Promise.all([this.connectRedis(), this.config.databaseUrl !== undefined ? this.listen(this.config.databaseUrl) : undefined]);
  }

  private async connectRedis(): Promise<void> {
    const target = this.config.redis;
    if (target === undefined) return;
    const retryStrategy = (n: number) => Math.min(n * 100, 2000);
    this.publisher = connectRedis(target, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 250,
      retryStrategy,
    });
    // The subscriber keeps ioredis's offline queue: SUBSCRIBE waits for the connection (and is
    // sent again after every reconnect), without holding up the start when Redis is down.
    this.subscriber = connectRedis(target, { retryStrategy });
    for (const r of [this.publisher, this.subscriber]) r.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, raw: string) => this.receive(raw));
    void this.subscriber.subscribe(this.channel).catch((err: Error) => {
      this.logger.warn(`Cannot subscribe to cache invalidations in Redis (${err.message})`);
    });
    await firstConnectionAttempt(this.subscriber);
  }

  /** LISTEN on a connection of its own; when it is lost, again a second later, for as long as the app runs. */
  private async listen(databaseUrl: string): Promise<void> {
    const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2000, keepAlive: true });
    client.on('error', () => undefined); // 'end' follows
    client.on('notification', (n) => {
      if (n.payload !== undefined) this.receive(n.payload);
    });
    client.on('end', () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      this.lostListener('the connection ended');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.pgChannel}`);
    } catch (err) {
      void client.end().catch(() => undefined);
      this.lostListener((err as Error).message);
      return;
    }
    if (this.stopped) return void client.end().catch(() => undefined);
    this.listener = client;
    if (this.listenerLost) this.logger.warn('Listening for cache invalidations in PostgreSQL again');
    this.listenerLost = false;
  }

  private lostListener(reason: string): void {
    if (this.stopped) return;
    if (!this.listenerLost) this.logger.warn(`Not listening for cache invalidations in PostgreSQL (${reason}); trying again every second`);
    this.listenerLost = true;
    this.relisten = setTimeout(() => void this.listen(this.config.databaseUrl!), RELISTEN_MS);
    this.relisten.unref();
  }

  /** A ReadThroughCache keyed by `topic`'s ids, whose entries this topic's invalidations drop on every instance. */
  cache<V extends CacheableValue>(topic: CacheTopic, options: Omit<ReadThroughCacheOptions<V>, 'refreshMs'>): ReadThroughCache<V> {
    const refreshMs = this.config.databaseUrl === undefined ? EMBEDDED_CACHE_REFRESH_MS : CACHE_REFRESH_MS;
    const cache = new ReadThroughCache<V>({ ...options, refreshMs, counted: this.metrics.cache(topic) });
    this.local.on(topic, (id: string) => cache.invalidate(id));
    return cache;
  }

  invalidate(topic: CacheTopic, ...ids: Array<string | null | undefined>): void {
    const present = ids.filter((id): id is string => typeof id === 'string' && id.length > 0);
    if (present.length === 0) return;
    for (const id of present) this.local.emit(topic, id);
    if (this.publisher === undefined && this.listener === undefined) return;
    for (let i = 0; i < present.length; i += IDS_PER_MESSAGE) {
      const raw = JSON.stringify({
        origin: this.origin,
        seq: ++this.seq,
        topic,
        ids: present.slice(i, i + IDS_PER_MESSAGE),
      } satisfies Message);
      this.publisher?.publish(this.channel, raw).catch((err: Error) => {
        this.logger.warn(`Could not tell other instances through Redis to drop ${topic} entries (${err.message})`);
      });
      // Not connected: lostListener has warned, and the caches' refresh covers what is lost.
      this.listener?.query('SELECT pg_notify($1, $2)', [this.pgChannel, raw]).catch((err: Error) => {
        this.logger.warn(`Could not tell other instances through PostgreSQL to drop ${topic} entries (${err.message})`);
      });
    }
  }

  private receive(raw: string): void {
    try {
      const m = JSON.parse(raw) as Message;
      if (m.origin === this.origin || !['user', 'apiKeyHash', 'account'].includes(m.topic)) return;
      const seen = `${m.origin}:${m.seq}`;
      if (this.seen.has(seen)) return;
      if (this.seen.size >= 10_000) this.seen.clear();
      this.seen.add(seen);
      for (const id of m.ids) if (typeof id === 'string') this.local.emit(m.topic, id);
    } catch {
      this.logger.warn('Ignored a malformed cache invalidation message');
    }
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.relisten);
    this.publisher?.disconnect();
    this.subscriber?.disconnect();
    void this.listener?.end().catch(() => undefined);
    this.listener = undefined;
  }
}

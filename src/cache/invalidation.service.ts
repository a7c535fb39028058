import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { firstConnectionAttempt } from '../common/redis-first-connection';
import { APP_CONFIG, AppConfig } from '../config/app-config';
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
  readonly topic: CacheTopic;
  readonly ids: readonly string[];
}

/**
 * Drops cache entries on every instance: at once on this one, and through Redis pub/sub on the
 * others when REDIS_URL is set. A lost message (Redis down) is covered by the caches' refresh
 * (ReadThroughCache, 30 s; 10 min on the embedded database, which no other process writes).
 * Caches are made with `cache`; code that changes what they hold calls `invalidate`.
 */
@Injectable()
export class CacheInvalidation implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(CacheInvalidation.name);
  private readonly local = new EventEmitter();
  private readonly origin = randomUUID();
  private readonly channel: string;
  private publisher?: Redis;
  private subscriber?: Redis;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.channel = `${config.redisKeyPrefix}invalidate`;
    this.local.setMaxListeners(20);
  }

  async onModuleInit(): Promise<void> {
    if (this.config.redisUrl === undefined) return;
    const retryStrategy = (n: number) => Math.min(n * 100, 2000);
    this.publisher = new Redis(this.config.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 250,
      retryStrategy,
    });
    // The subscriber keeps ioredis's offline queue: SUBSCRIBE waits for the connection (and is
    // sent again after every reconnect), without holding up the start when Redis is down.
    this.subscriber = new Redis(this.config.redisUrl, { retryStrategy });
    for (const r of [this.publisher, this.subscriber]) r.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, raw: string) => this.receive(raw));
    void this.subscriber.subscribe(this.channel).catch((err: Error) => {
      this.logger.warn(`Cannot subscribe to cache invalidations (${err.message}); other instances' changes reach this one within 30 s`);
    });
    await firstConnectionAttempt(this.subscriber);
  }

  /** A ReadThroughCache keyed by `topic`'s ids, whose entries this topic's invalidations drop on every instance. */
  cache<V extends CacheableValue>(topic: CacheTopic, options: Omit<ReadThroughCacheOptions<V>, 'refreshMs'>): ReadThroughCache<V> {
    const refreshMs = this.config.databaseUrl === undefined ? EMBEDDED_CACHE_REFRESH_MS : CACHE_REFRESH_MS;
    const cache = new ReadThroughCache<V>({ ...options, refreshMs });
    this.local.on(topic, (id: string) => cache.invalidate(id));
    return cache;
  }

  invalidate(topic: CacheTopic, ...ids: Array<string | null | undefined>): void {
    const present = ids.filter((id): id is string => typeof id === 'string' && id.length > 0);
    if (present.length === 0) return;
    for (const id of present) this.local.emit(topic, id);
    const message: Message = { origin: this.origin, topic, ids: present };
    this.publisher?.publish(this.channel, JSON.stringify(message)).catch((err: Error) => {
      this.logger.warn(`Could not tell other instances to drop ${topic} entries (${err.message}); they re-read them within 30 s`);
    });
  }

  private receive(raw: string): void {
    try {
      const m = JSON.parse(raw) as Message;
      if (m.origin === this.origin || !['user', 'apiKeyHash', 'account'].includes(m.topic)) return;
      for (const id of m.ids) if (typeof id === 'string') this.local.emit(m.topic, id);
    } catch {
      this.logger.warn('Ignored a malformed cache invalidation message');
    }
  }

  onApplicationShutdown(): void {
    this.publisher?.disconnect();
    this.subscriber?.disconnect();
  }
}

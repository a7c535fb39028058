import { LRUCache } from 'lru-cache';

/** How often cached rows are re-read: the bound on staleness should an invalidation message be lost. */
export const CACHE_REFRESH_MS = 30_000;

/**
 * The same for the embedded database, which only this process can open: every change goes through
 * this process's `invalidate`, so no message can be lost, and the refresh is only a backstop. At
 * 30 s it cost the embedded API-key path ~6% of its CPU with 400 keys in use (each re-read is a
 * Prisma query of ~3 ms of CPU on PGlite; docs/PERFORMANCE.md), and grows with the keys in use.
 */
export const EMBEDDED_CACHE_REFRESH_MS = 10 * 60_000;

/** What a cache may hold: anything but undefined and null (undefined means a miss). */
export type CacheableValue = object | number | string | boolean;

export interface ReadThroughCacheOptions<V> {
  /** Most entries kept (least recently used dropped first). */
  readonly max: number;
  /** An entry read after about this long is refreshed in the background; unread for twice as long, it is dropped. */
  readonly refreshMs: number;
  readonly load: (key: string) => Promise<V>;
}

interface Entry<V> {
  readonly value: V;
  /** When a read should start a background reload (pushed back 1 s after a failed one). */
  refreshAt: number;
}

/** After a failed background reload, reads wait this long before trying again. */
const RETRY_REFRESH_MS = 1_000;

/**
 * What the request path keeps of the database (API keys, users, plan limits), shaped for it:
 *
 * - a hit is synchronous, so a warm request awaits nothing here;
 * - a hit older than half to all of `refreshMs` (spread, so entries loaded together are not
 *   reloaded together: 400 keys reloading at once showed as dips) is answered from the cache and
 *   reloaded in the background; an entry whose last load
 *   is 2 × `refreshMs` old is dropped (so one nobody reads goes away, and staleness stays bounded
 *   if an invalidation message is lost or the reloads keep failing);
 * - concurrent misses of one key share one load;
 * - `invalidate` drops the entry, and a load of that key that was already running is not stored
 *   (it may have read the old row).
 */
export class ReadThroughCache<V extends CacheableValue> {
  private readonly entries: LRUCache<string, Entry<V>>;
  private readonly loading = new Map<string, Promise<V>>();

  constructor(private readonly options: ReadThroughCacheOptions<V>) {
    this.entries = new LRUCache<string, Entry<V>>({ max: options.max, ttl: 2 * options.refreshMs });
  }

  /** The cached value, or undefined; a due refresh starts in the background. */
  cached(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    const now = Date.now();
    if (entry.refreshAt <= now && !this.loading.has(key)) {
      // On failure the old value is kept (until it expires), and reads retry a second later.
      this.load(key).catch(() => {
        entry.refreshAt = Date.now() + RETRY_REFRESH_MS;
      });
    }
    return entry.value;
  }

  /** The cached value, or a (shared) load of it. */
  get(key: string): V | Promise<V> {
    return this.cached(key) ?? this.load(key);
  }

  /** Loads and stores the value; callers of the same key share one load. */
  load(key: string): Promise<V> {
    const running = this.loading.get(key);
    if (running !== undefined) return running;
    const loaded: Promise<V> = new Promise<V>((resolve) => resolve(this.options.load(key)))
      .then((value) => {
        // Not stored if the key was invalidated (or reloaded) meanwhile.
        if (this.loading.get(key) === loaded) {
          this.entries.set(key, { value, refreshAt: Date.now() + this.options.refreshMs * (0.5 + 0.5 * Math.random()) });
        }
        return value;
      })
      .finally(() => {
        if (this.loading.get(key) === loaded) this.loading.delete(key);
      });
    this.loading.set(key, loaded);
    return loaded;
  }

  invalidate(key: string): void {
    this.entries.delete(key);
    this.loading.delete(key);
  }
}

import { LRUCache } from 'lru-cache';

/** How often cached rows are re-read: the bound on staleness should an invalidation message be lost. */
export const CACHE_REFRESH_MS = 30_000;

export interface ReadThroughCacheOptions<V> {
  /** Most entries kept (least recently used dropped first). */
  readonly max: number;
  /** An entry read after about this long is refreshed in the background; unread for twice as long, it is dropped. */
  readonly refreshMs: number;
  readonly load: (key: string) => Promise<V>;
}

interface Entry<V> {
  readonly value: V;
  readonly refreshAt: number;
}

/**
 * What the request path keeps of the database (API keys, users, plan limits), shaped for it:
 *
 * - a hit is synchronous, so a warm request awaits nothing here;
 * - a hit older than `refreshMs` (minus up to 20%, so entries loaded together are not reloaded together) is
 *   answered from the cache and reloaded in the background; an entry nobody read for
 *   2 × `refreshMs` expires, so staleness stays bounded if an invalidation message is lost;
 * - concurrent misses of one key share one load;
 * - `invalidate` drops the entry, and a load that was already running is not stored (it may have
 *   read the old row).
 */
export class ReadThroughCache<V extends object | number | string | boolean> {
  private readonly entries: LRUCache<string, Entry<V>>;
  private readonly loading = new Map<string, Promise<V>>();
  private generation = 0;

  constructor(private readonly options: ReadThroughCacheOptions<V>) {
    this.entries = new LRUCache<string, Entry<V>>({ max: options.max, ttl: 2 * options.refreshMs });
  }

  /** The cached value, or undefined; a due refresh starts in the background. */
  cached(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.refreshAt <= Date.now() && !this.loading.has(key)) {
      // Failure keeps the old value until it expires: the next read after that loads (and fails) in the open.
      this.load(key).catch(() => undefined);
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
    const generation = this.generation;
    const loaded = this.options
      .load(key)
      .then((value) => {
        if (this.generation === generation) {
          this.entries.set(key, { value, refreshAt: Date.now() + this.options.refreshMs * (0.8 + 0.2 * Math.random()) });
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
    this.generation++;
    this.entries.delete(key);
    this.loading.delete(key);
  }
}

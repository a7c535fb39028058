import { LRUCache } from 'lru-cache';

/** How often cached rows are re-read: the bound on staleness should an invalidation message be lost. */
export const CACHE_REFRESH_MS = 30_000;

/**
 * The same for the embedded database, which only this process can open: every change goes through
 * this process's `invalidate`, so no message can be lost, and the refresh is only a backstop. At
 * 30 s it cost the embedded API-key path ~6% of its CPU with 400 keys in use (each re-read is a
 * Prisma query of ~3 ms of CPU on PGlite; docs/PERFORMANCE.md, "Cache refresh in batches"), and grows with the keys in use.
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
  /**
   * Loads several keys at once, a value for each in their order. With it, background refreshes
   * that fall due within REFRESH_BATCH_MS go to the database together, so keeping N entries fresh
   * costs a query a second, not N queries per refresh interval (docs/PERFORMANCE.md, "Cache refresh in batches"). `undefined`
   * for a key fails that key's refresh alone, as a failed load would.
   */
  readonly loadMany?: (keys: readonly string[]) => Promise<Array<V | undefined>>;
  /** Counters of hits and misses of `cached` (and so of `get`), for the metrics. */
  readonly counted?: { readonly hit: { value: number }; readonly miss: { value: number } };
}

interface Entry<V> {
  readonly value: V;
  /** When a read should start a background reload (pushed back 1 s after a failed one). */
  refreshAt: number;
}

/** After a failed background reload, reads wait this long before trying again. */
const RETRY_REFRESH_MS = 1_000;
/** With `loadMany`: how long a due refresh waits for others to go with it, and how many go in one call. */
export const REFRESH_BATCH_MS = 1_000;
const REFRESH_BATCH_MAX = 500;

/**
 * What the request path keeps of the database (API keys, users, plan limits), shaped for it:
 *
 * - a hit is synchronous, so a warm request awaits nothing here;
 * - a hit older than half to all of `refreshMs` (spread, so entries loaded together are not
 *   reloaded together: 400 keys reloading at once showed as dips) is answered from the cache and
 *   reloaded in the background, with the others due within a second when there is `loadMany`;
 *   an entry whose last load
 *   is 2 × `refreshMs` old is dropped (so one nobody reads goes away, and staleness stays bounded
 *   if an invalidation message is lost or the reloads keep failing);
 * - concurrent misses of one key share one load;
 * - `invalidate` drops the entry, and a load of that key that was already running is not stored
 *   (it may have read the old row).
 */
export class ReadThroughCache<V extends CacheableValue> {
  private readonly entries: LRUCache<string, Entry<V>>;
  private readonly loading = new Map<string, Promise<V>>();
  /** With `loadMany`: keys whose background refresh waits for the next batch. */
  private readonly due = new Set<string>();
  private dueTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ReadThroughCacheOptions<V>) {
    // Bounded by maxSize at one unit an entry, not by max: with max, lru-cache allocates its arrays
    // for all `max` entries up front (~4 MiB for 100,000), however few the cache ever holds.
    this.entries = new LRUCache<string, Entry<V>>({ maxSize: options.max, sizeCalculation: () => 1, ttl: 2 * options.refreshMs });
  }

  /** The cached value, or undefined; a due refresh starts in the background. */
  cached(key: string): V | undefined {
    const entry = this.entries.get(key);
    const counted = this.options.counted;
    if (entry === undefined) {
      if (counted !== undefined) counted.miss.value += 1;
      return undefined;
    }
    if (counted !== undefined) counted.hit.value += 1;
    const now = Date.now();
    if (entry.refreshAt <= now && !this.loading.has(key) && !this.due.has(key)) this.refresh(key);
    return entry.value;
  }

  /**
   * Reloads a due entry in the background: at once, or with the next batch when there is
   * `loadMany`. On failure the old value is kept (until it expires), and reads retry a second later.
   */
  private refresh(key: string): void {
    if (this.options.loadMany === undefined) {
      this.load(key).catch(() => this.retryLater(key));
      return;
    }
    this.due.add(key);
    this.dueTimer ??= setTimeout(() => this.refreshDue(), REFRESH_BATCH_MS).unref();
  }

  private refreshDue(): void {
    const loadMany = this.options.loadMany!;
    const keys = [...this.due].filter((key) => !this.loading.has(key));
    this.due.clear();
    this.dueTimer = undefined;
    for (let i = 0; i < keys.length; i += REFRESH_BATCH_MAX) {
      const batch = keys.slice(i, i + REFRESH_BATCH_MAX);
      const values = new Promise<Array<V | undefined>>((resolve) => resolve(loadMany(batch)));
      batch.forEach((key, j) => {
        this.track(
          key,
          values.then((v) => v[j] ?? Promise.reject(new Error('loadMany gave no value'))),
        ).catch(() => this.retryLater(key));
      });
    }
  }

  private retryLater(key: string): void {
    const entry = this.entries.peek(key);
    if (entry !== undefined) entry.refreshAt = Date.now() + RETRY_REFRESH_MS;
  }

  /** The cached value, or a (shared) load of it. */
  get(key: string): V | Promise<V> {
    return this.cached(key) ?? this.load(key);
  }

  /** Loads and stores the value; callers of the same key share one load. */
  load(key: string): Promise<V> {
    return this.loading.get(key) ?? this.track(key, new Promise<V>((resolve) => resolve(this.options.load(key))));
  }

  /** Stores what `loading` gives for `key`, unless the key is invalidated (or reloaded) meanwhile. */
  private track(key: string, loading: Promise<V>): Promise<V> {
    const loaded: Promise<V> = loading
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
    this.due.delete(key);
  }
}

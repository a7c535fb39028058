import { loadUnderFakeClock } from '../../test/utils/fake-clock';
import type * as ReadThroughCacheModule from './read-through-cache';

const REFRESH_MS = 30_000;

/** A `load` whose promises the test settles by hand, oldest first unless told otherwise. */
class ManualLoad {
  /** Every key asked for, in order. */
  readonly calls: string[] = [];
  private readonly pending: Array<{ resolve: (value: string) => void; reject: (err: unknown) => void }> = [];

  readonly load = (key: string): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      this.calls.push(key);
      this.pending.push({ resolve, reject });
    });

  resolve(value: string, index = 0): void {
    this.take(index).resolve(value);
  }

  reject(err: unknown, index = 0): void {
    this.take(index).reject(err);
  }

  private take(index: number) {
    const [load] = this.pending.splice(index, 1);
    if (load === undefined) throw new Error(`no running load #${index}`);
    return load;
  }
}

/** Runs every callback the settled loads queued (real macrotask, fake clock unchanged). */
const settle = () => jest.advanceTimersByTimeAsync(0);

describe('ReadThroughCache', () => {
  let ReadThroughCache: typeof ReadThroughCacheModule.ReadThroughCache;
  let loader: ManualLoad;
  let cache: ReadThroughCacheModule.ReadThroughCache<string>;

  beforeEach(() => {
    ({ ReadThroughCache } = loadUnderFakeClock(
      Date.UTC(2025, 0, 1),
      () => require('./read-through-cache') as typeof ReadThroughCacheModule,
    ));
    loader = new ManualLoad();
    cache = new ReadThroughCache<string>({ max: 100, refreshMs: REFRESH_MS, load: loader.load });
  });

  afterEach(() => jest.useRealTimers());

  /** Loads `key` as `value` through a miss, as a first request would. */
  async function prime(key: string, value: string): Promise<void> {
    const loading = cache.get(key);
    loader.resolve(value);
    await loading;
  }

  it('loads a missing key once, then answers it synchronously', async () => {
    expect(cache.cached('k')).toBeUndefined();
    expect(loader.calls).toEqual([]);

    const first = cache.get('k');
    expect(first).toBeInstanceOf(Promise);
    loader.resolve('v1');
    await expect(first).resolves.toBe('v1');

    expect(cache.get('k')).toBe('v1');
    expect(cache.cached('k')).toBe('v1');
    expect(loader.calls).toEqual(['k']);
  });

  it('shares one load between concurrent misses of a key, but not between keys', async () => {
    const reads = [cache.get('k'), cache.get('k'), cache.load('k')];
    const other = cache.get('other');
    expect(loader.calls).toEqual(['k', 'other']);

    loader.resolve('v');
    loader.resolve('w');
    await expect(Promise.all(reads)).resolves.toEqual(['v', 'v', 'v']);
    await expect(other).resolves.toBe('w');
    expect(cache.cached('k')).toBe('v');
  });

  it('does not store a load that was running when its key was invalidated, and loads again on the next read', async () => {
    const stale = cache.get('k');
    cache.invalidate('k');
    loader.resolve('old');
    // Its callers still get what it read…
    await expect(stale).resolves.toBe('old');
    // …but the cache does not keep it.
    expect(cache.cached('k')).toBeUndefined();

    const fresh = cache.get('k');
    expect(fresh).toBeInstanceOf(Promise);
    expect(loader.calls).toEqual(['k', 'k']);
    loader.resolve('new');
    await expect(fresh).resolves.toBe('new');
    expect(cache.cached('k')).toBe('new');
  });

  it('keeps a running load of one key when another key is invalidated', async () => {
    const a = cache.get('a');
    cache.invalidate('b');
    loader.resolve('va');
    await expect(a).resolves.toBe('va');
    expect(cache.cached('a')).toBe('va');
  });

  it('never lets a load from before an invalidation overwrite the value loaded after it', async () => {
    const stale = cache.get('k');
    cache.invalidate('k');
    const fresh = cache.get('k');
    expect(fresh).not.toBe(stale);
    expect(loader.calls).toEqual(['k', 'k']);

    loader.resolve('new', 1);
    await expect(fresh).resolves.toBe('new');
    loader.resolve('old', 0);
    await expect(stale).resolves.toBe('old');

    expect(cache.cached('k')).toBe('new');
  });

  it('drops a cached value when its key is invalidated', async () => {
    await prime('k', 'v1');
    cache.invalidate('k');
    expect(cache.cached('k')).toBeUndefined();
    expect(cache.get('k')).toBeInstanceOf(Promise);
    expect(loader.calls).toEqual(['k', 'k']);
  });

  it('does not reload an entry before its refresh is due', async () => {
    await prime('k', 'v1');
    // The refresh is due after 50% to 100% of refreshMs (spread).
    jest.advanceTimersByTime(0.5 * REFRESH_MS - 1);
    expect(cache.cached('k')).toBe('v1');
    expect(cache.get('k')).toBe('v1');
    expect(loader.calls).toEqual(['k']);
  });

  it('answers a due entry from the cache while one background reload runs, then serves the reloaded value', async () => {
    await prime('k', 'v1');
    jest.advanceTimersByTime(REFRESH_MS);

    expect(cache.cached('k')).toBe('v1');
    expect(cache.get('k')).toBe('v1');
    expect(cache.cached('k')).toBe('v1');
    expect(loader.calls).toEqual(['k', 'k']);

    loader.resolve('v2');
    await settle();
    expect(cache.get('k')).toBe('v2');
    expect(cache.cached('k')).toBe('v2');
    expect(loader.calls).toEqual(['k', 'k']);
  });

  it('keeps serving the old value when a background refresh fails, and retries a second later', async () => {
    await prime('k', 'v1');
    jest.advanceTimersByTime(REFRESH_MS);
    expect(cache.cached('k')).toBe('v1');

    loader.reject(new Error('database down'));
    await settle();
    expect(cache.get('k')).toBe('v1');
    expect(loader.calls).toEqual(['k', 'k']); // no retry on every read
    jest.advanceTimersByTime(1_000);
    expect(cache.get('k')).toBe('v1');
    expect(loader.calls).toEqual(['k', 'k', 'k']);

    loader.resolve('v2');
    await settle();
    expect(cache.get('k')).toBe('v2');
  });

  it('drops an entry nobody read for twice the refresh interval', async () => {
    await prime('read', 'r');
    await prime('unread', 'u');

    jest.advanceTimersByTime(2 * REFRESH_MS - 1);
    expect(cache.cached('read')).toBe('r');
    jest.advanceTimersByTime(2);
    expect(cache.cached('unread')).toBeUndefined();
    expect(loader.calls).toEqual(['read', 'unread', 'read']);

    const again = cache.get('unread');
    expect(again).toBeInstanceOf(Promise);
    loader.resolve('r2');
    loader.resolve('u2');
    await expect(again).resolves.toBe('u2');
  });

  it('after a failed refresh, drops the old value on time and lets the next read fail in the open', async () => {
    await prime('k', 'v1');
    jest.advanceTimersByTime(REFRESH_MS);
    expect(cache.cached('k')).toBe('v1');
    loader.reject(new Error('database down'));
    await settle();

    jest.advanceTimersByTime(REFRESH_MS + 1);
    expect(cache.cached('k')).toBeUndefined();
    const read = cache.get('k');
    loader.reject(new Error('still down'));
    await expect(read).rejects.toThrow('still down');
  });

  it('rejects every caller of a failing load and stores nothing', async () => {
    const reads = [cache.get('k'), cache.get('k')];
    loader.reject(new Error('database down'));
    for (const read of reads) await expect(read).rejects.toThrow('database down');
    expect(cache.cached('k')).toBeUndefined();

    const retry = cache.get('k');
    expect(loader.calls).toEqual(['k', 'k']);
    loader.resolve('v');
    await expect(retry).resolves.toBe('v');
  });

  it('keeps at most `max` entries, dropping the least recently read', async () => {
    cache = new ReadThroughCache<string>({ max: 2, refreshMs: REFRESH_MS, load: loader.load });
    await prime('a', 'A');
    await prime('b', 'B');
    expect(cache.cached('a')).toBe('A');
    await prime('c', 'C');

    expect(cache.cached('b')).toBeUndefined();
    expect(cache.cached('a')).toBe('A');
    expect(cache.cached('c')).toBe('C');
  });

  describe('with loadMany', () => {
    /** Each `loadMany` call: its keys, and a way to settle it. */
    let batches: Array<{ keys: readonly string[]; resolve: (values: Array<string | undefined>) => void; reject: (err: unknown) => void }>;

    beforeEach(() => {
      batches = [];
      const loadMany = (keys: readonly string[]) =>
        new Promise<Array<string | undefined>>((resolve, reject) => batches.push({ keys, resolve, reject }));
      cache = new ReadThroughCache<string>({ max: 100, refreshMs: REFRESH_MS, load: loader.load, loadMany });
    });

    it('refreshes the entries that fall due within a second in one call, serving the old values meanwhile', async () => {
      await prime('a', 'A1');
      await prime('b', 'B1');
      await prime('c', 'C1');
      jest.advanceTimersByTime(REFRESH_MS);

      expect(cache.cached('a')).toBe('A1');
      jest.advanceTimersByTime(400);
      expect(cache.cached('b')).toBe('B1');
      expect(cache.cached('a')).toBe('A1'); // already waiting: not asked twice
      expect(batches).toEqual([]);
      jest.advanceTimersByTime(600);

      expect(batches.map((b) => b.keys)).toEqual([['a', 'b']]); // c was not read: not refreshed
      expect(loader.calls).toEqual(['a', 'b', 'c']); // misses only
      batches[0].resolve(['A2', 'B2']);
      await settle();
      expect(cache.cached('a')).toBe('A2');
      expect(cache.cached('b')).toBe('B2');
      expect(cache.cached('c')).toBe('C1');
    });

    it('leaves out a key invalidated while it waited, and does not store one invalidated while its batch ran', async () => {
      await prime('a', 'A1');
      await prime('b', 'B1');
      await prime('c', 'C1');
      jest.advanceTimersByTime(REFRESH_MS);
      for (const key of ['a', 'b', 'c']) cache.cached(key);
      cache.invalidate('a');
      jest.advanceTimersByTime(1_000);
      expect(batches.map((b) => b.keys)).toEqual([['b', 'c']]);

      cache.invalidate('b');
      batches[0].resolve(['B-old', 'C2']);
      await settle();
      expect(cache.cached('b')).toBeUndefined();
      expect(cache.cached('c')).toBe('C2');
    });

    it('keeps the old values when a batch fails, and refreshes them with the next read a second later', async () => {
      await prime('a', 'A1');
      jest.advanceTimersByTime(REFRESH_MS);
      cache.cached('a');
      jest.advanceTimersByTime(1_000);
      batches[0].reject(new Error('database down'));
      await settle();

      expect(cache.cached('a')).toBe('A1');
      jest.advanceTimersByTime(2_000);
      expect(batches).toHaveLength(1);
      cache.cached('a');
      jest.advanceTimersByTime(1_000);
      expect(batches).toHaveLength(2);
      batches[1].resolve(['A2']);
      await settle();
      expect(cache.cached('a')).toBe('A2');
    });

    it('fails only the refresh of a key the batch has no value for', async () => {
      await prime('a', 'A1');
      await prime('b', 'B1');
      jest.advanceTimersByTime(REFRESH_MS);
      cache.cached('a');
      cache.cached('b');
      jest.advanceTimersByTime(1_000);
      batches[0].resolve([undefined, 'B2']);
      await settle();

      expect(cache.cached('a')).toBe('A1'); // kept, as after a failed load
      expect(cache.cached('b')).toBe('B2');
      jest.advanceTimersByTime(1_000);
      cache.cached('a');
      jest.advanceTimersByTime(1_000);
      expect(batches.map((b) => b.keys)).toEqual([['a', 'b'], ['a']]);
    });
  });
});

import { MemoryThrottlerStorage } from './memory-throttler.storage';

const MINUTE = 60_000;

describe(MemoryThrottlerStorage.name, () => {
  let clock: number;
  let storage: MemoryThrottlerStorage;

  beforeEach(() => {
    clock = 1_700_000_000_000;
    storage = new MemoryThrottlerStorage(MINUTE, () => clock);
  });

  afterEach(() => storage.onModuleDestroy());

  it('counts every hit of a key within one window', async () => {
    expect((await storage.increment('k', MINUTE, 5)).totalHits).toBe(1);
    expect(storage.hit('k', MINUTE, 5).totalHits).toBe(2);
    clock += 59_000;
    expect(storage.hit('k', MINUTE, 5).totalHits).toBe(3);
  });

  it('counts at once but hands out the answers of one event-loop turn together, after I/O polling', async () => {
    const answered: number[] = [];
    const pending = [1, 2, 3].map(() => storage.increment('k', MINUTE, 2).then((r) => answered.push(r.totalHits)));
    expect(storage.peekSync('k').hits).toBe(3); // counted already
    await Promise.resolve();
    expect(answered).toEqual([]); // not before the check phase
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(pending);
    expect(answered).toEqual([1, 2, 3]);
  });

  it('blocks a key only once its hits exceed the limit', () => {
    const verdicts = Array.from({ length: 4 }, () => storage.hit('k', MINUTE, 3));
    expect(verdicts.map((v) => v.isBlocked)).toEqual([false, false, false, true]);
    expect(verdicts[2].timeToBlockExpire).toBe(0);
    expect(verdicts[3].timeToBlockExpire).toBe(60);
  });

  it('reports whole seconds until the window ends, counting down', () => {
    expect(storage.hit('k', MINUTE, 10).timeToExpire).toBe(60);
    clock += 500;
    expect(storage.hit('k', MINUTE, 10).timeToExpire).toBe(60);
    clock += 1_000;
    expect(storage.hit('k', MINUTE, 10).timeToExpire).toBe(59);
    clock += 58_000;
    expect(storage.hit('k', MINUTE, 10).timeToExpire).toBe(1);
  });

  it('starts a fresh, unblocked window once the old one has expired', () => {
    for (let i = 0; i < 5; i++) storage.hit('k', MINUTE, 3);
    clock += MINUTE;
    const next = storage.hit('k', MINUTE, 3);
    expect(next).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
  });

  it('keeps the counts of different keys apart', () => {
    for (let i = 0; i < 4; i++) storage.hit('a', MINUTE, 3);
    const b = storage.hit('b', MINUTE, 3);
    expect(b.totalHits).toBe(1);
    expect(b.isBlocked).toBe(false);
    expect(storage.hit('a', MINUTE, 3).isBlocked).toBe(true);
  });

  it('drops only expired windows when swept', () => {
    storage.hit('old', 1_000, 3);
    storage.hit('new', MINUTE, 3);
    expect(storage.size).toBe(2);
    clock += 1_000;
    storage.sweep();
    expect(storage.size).toBe(1);
    expect(storage.peekSync('new').hits).toBe(1);
    clock += MINUTE;
    storage.sweep();
    expect(storage.size).toBe(0);
  });

  it('sweeps on its own schedule', () => {
    jest.useFakeTimers();
    const timed = new MemoryThrottlerStorage(1_000, () => clock);
    try {
      timed.hit('k', 500, 3);
      clock += 500;
      expect(timed.size).toBe(1);
      jest.advanceTimersByTime(1_000);
      expect(timed.size).toBe(0);
    } finally {
      timed.onModuleDestroy();
      jest.useRealTimers();
    }
  });

  it('lets a key be peeked at without counting a hit', async () => {
    expect(storage.peekSync('k')).toEqual({ hits: 0, timeToExpire: 0 });
    storage.hit('k', MINUTE, 3);
    storage.hit('k', MINUTE, 3);
    clock += 10_000;
    expect(storage.peekSync('k')).toEqual({ hits: 2, timeToExpire: 50 });
    expect(await storage.peek('k')).toEqual({ hits: 2, timeToExpire: 50 });
    expect(storage.hit('k', MINUTE, 3).totalHits).toBe(3);
  });

  it('peeks an expired window as empty', () => {
    storage.hit('k', MINUTE, 3);
    clock += MINUTE;
    expect(storage.peekSync('k')).toEqual({ hits: 0, timeToExpire: 0 });
  });
});

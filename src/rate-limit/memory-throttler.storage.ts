import { OnModuleDestroy } from '@nestjs/common';
import type { CounterStorage, ThrottlerStorageRecord, WindowPeek } from './counter-storage';
import { TurnBatch } from './turn-batch';

interface HeldAnswer {
  readonly resolve: (record: ThrottlerStorageRecord) => void;
  readonly record: ThrottlerStorageRecord;
}

interface Window {
  hits: number;
  expiresAt: number;
}

/**
 * Fixed-window counters: one number per key and window, O(1) per hit. The throttler's default
 * storage keeps a timestamp per hit and filters the list on every request (see docs/BENCHMARKS.md).
 * A blocked key stays blocked until its window ends; `blockDuration` is not used.
 */
export class MemoryThrottlerStorage implements CounterStorage, OnModuleDestroy {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;
  /** Answers counted in this turn of the event loop, handed out together (see increment). */
  private readonly answers = new TurnBatch<HeldAnswer>((held) => {
    for (const { resolve, record } of held) resolve(record);
  });

  constructor(
    sweepEveryMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
  }

  /**
   * Counts at once; the answer is handed out with the others of the same event-loop turn, after
   * I/O polling (setImmediate), as the Redis storage's answers are. The requests of a turn then
   * finish and write their responses together instead of one by one between socket reads, which
   * halved the CPU per API-key request here (docs/PERFORMANCE.md, "Answering once per loop turn").
   * Measured again against answering at once (a settled promise): that cost about a third more CPU
   * per request (docs/DECISIONS.md, "Rate limiting").
   */
  increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const record = this.hit(key, ttl, limit);
    return new Promise((resolve) => this.answers.add({ resolve, record }));
  }

  hit(key: string, ttlMs: number, limit: number): ThrottlerStorageRecord {
    const now = this.now();
    let w = this.windows.get(key);
    if (w === undefined || w.expiresAt <= now) {
      w = { hits: 0, expiresAt: now + ttlMs };
      this.windows.set(key, w);
    }
    w.hits += 1;
    const timeToExpire = Math.ceil((w.expiresAt - now) / 1000);
    const isBlocked = w.hits > limit;
    return { totalHits: w.hits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 };
  }

  peek(key: string): Promise<WindowPeek> {
    return Promise.resolve(this.peekSync(key));
  }

  peekSync(key: string): WindowPeek {
    const now = this.now();
    const w = this.windows.get(key);
    if (w === undefined || w.expiresAt <= now) return { hits: 0, timeToExpire: 0 };
    return { hits: w.hits, timeToExpire: Math.ceil((w.expiresAt - now) / 1000) };
  }

  status(): 'memory' {
    return 'memory';
  }

  get size(): number {
    return this.windows.size;
  }

  sweep(): void {
    const now = this.now();
    for (const [key, w] of this.windows) if (w.expiresAt <= now) this.windows.delete(key);
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }
}

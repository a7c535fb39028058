import { closeSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { connectRedis, firstConnectionAttempt, RedisClient, RedisTarget } from '../common/redis-client';
import type { PrismaService } from '../prisma/prisma.service';

/**
 * Single use, decided atomically: `claim` answers true for exactly one of any number of claims of
 * an id before `expiresAtMs`, on every instance sharing the store; false for an id already past it
 * (what expired cannot be used, and two claims in its last millisecond must not both win). Nonces and widget solutions are
 * claimed here (docs/DECISIONS.md, "Nonces are signed tokens").
 */
export interface SpentStore {
  claim(id: string, expiresAtMs: number): Promise<boolean>;
  /**
   * Keeps `value` under `id` until `expiresAtMs` unless a live value is there already: undefined
   * when this call put it (exactly one of concurrent calls on every instance does), else the value
   * that was there. Verify's Idempotency-Key records are kept so.
   */
  putIfAbsent(id: string, value: string, expiresAtMs: number): Promise<string | undefined>;
  /** Replaces the value of an id this instance put (a pending record by its verdict). */
  replace(id: string, value: string, expiresAtMs: number): Promise<void>;
  /** The live value of `id`, if any. */
  get(id: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/**
 * The embedded default's store: a map in this process, each claim also appended to
 * `DATA_DIR/spent` before it is answered, so what was spent before a restart (or a kill) stays
 * spent; read back at start, rewritten without expired entries hourly. Without a file
 * (DATA_DIR=memory://) it is the map alone. One process per data directory, as for the database.
 */
export class LocalSpentStore implements SpentStore {
  private readonly spent = new Map<string, number>();
  /** The values kept with some ids (Idempotency-Key records); their expiry is the id's in `spent`. */
  private readonly values = new Map<string, string>();
  private fd: number | undefined;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly file?: string) {
    if (file !== undefined) {
      this.load(file);
      this.rewrite(file);
    }
    this.sweeper = setInterval(() => this.sweep(), 3600_000);
    this.sweeper.unref();
  }

  static inDataDir(dataDir: string): LocalSpentStore {
    return new LocalSpentStore(join(dataDir, 'spent'));
  }

  claim(id: string, expiresAtMs: number): Promise<boolean> {
    const now = Date.now();
    if (expiresAtMs <= now) return Promise.resolve(false);
    const until = this.spent.get(id);
    if (until !== undefined && until > now) return Promise.resolve(false);
    this.spent.set(id, expiresAtMs);
    if (this.fd !== undefined) writeSync(this.fd, `${id} ${expiresAtMs}\n`);
    return Promise.resolve(true);
  }

  putIfAbsent(id: string, value: string, expiresAtMs: number): Promise<string | undefined> {
    const until = this.spent.get(id);
    if (until !== undefined && until > Date.now()) return Promise.resolve(this.values.get(id) ?? '');
    this.keep(id, value, expiresAtMs);
    return Promise.resolve(undefined);
  }

  replace(id: string, value: string, expiresAtMs: number): Promise<void> {
    this.keep(id, value, expiresAtMs);
    return Promise.resolve();
  }

  get(id: string): Promise<string | undefined> {
    const until = this.spent.get(id);
    return Promise.resolve(until !== undefined && until > Date.now() ? this.values.get(id) : undefined);
  }

  /** A value, in the map and appended to the file (base64url: one line, one field). */
  private keep(id: string, value: string, expiresAtMs: number): void {
    this.spent.set(id, expiresAtMs);
    this.values.set(id, value);
    if (this.fd !== undefined) writeSync(this.fd, `${id} ${expiresAtMs} ${Buffer.from(value).toString('base64url')}\n`);
  }

  /** How many ids are held (expired ones until the next sweep). */
  get size(): number {
    return this.spent.size;
  }

  /** Drops expired entries, and rewrites the file with the live ones. */
  sweep(now = Date.now()): void {
    for (const [id, until] of this.spent) {
      if (until > now) continue;
      this.spent.delete(id);
      this.values.delete(id);
    }
    if (this.file !== undefined) this.rewrite(this.file);
  }

  close(): Promise<void> {
    clearInterval(this.sweeper);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    return Promise.resolve();
  }

  private load(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const now = Date.now();
    for (const line of text.split('\n')) {
      const [id, until, value] = line.split(' ');
      const ms = Number(until);
      // A last line cut short by a kill has no expiry: its claim was never answered. A later line
      // of the same id (a record's verdict after its pending state) replaces an earlier one.
      if (!id || !Number.isFinite(ms) || ms <= now) continue;
      this.spent.set(id, ms);
      if (value !== undefined) this.values.set(id, Buffer.from(value, 'base64url').toString());
    }
  }

  /** The live entries into a new file, renamed over the old one; appends go on in the new one. */
  private rewrite(file: string): void {
    const next = `${file}.new`;
    const line = (id: string, until: number) => {
      const value = this.values.get(id);
      return value === undefined ? `${id} ${until}\n` : `${id} ${until} ${Buffer.from(value).toString('base64url')}\n`;
    };
    writeFileSync(next, [...this.spent].map(([id, until]) => line(id, until)).join(''), { mode: 0o600 });
    renameSync(next, file);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = openSync(file, 'a');
  }
}

/**
 * PostgreSQL's store, for instances that share a database but no Redis, and Redis's fallback: an
 * insert that conflicts on the id's primary key claims nothing. Expired rows are deleted hourly
 * (every instance's store does so; an expired row not deleted yet is taken over by a new claim).
 */
export class DatabaseSpentStore implements SpentStore {
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly prisma: PrismaService) {
    this.sweeper = setInterval(() => void this.sweep().catch(() => undefined), 3600_000);
    this.sweeper.unref();
  }

  async claim(id: string, expiresAtMs: number): Promise<boolean> {
    const now = new Date();
    if (expiresAtMs <= now.getTime()) return false;
    // An expired row of the same id (not swept yet) is taken over; a live one is not.
    const rows = await this.prisma.$queryRaw<unknown[]>`
      INSERT INTO "SpentChallenge" ("hash", "expiresAt") VALUES (${id}, ${new Date(expiresAtMs)})
      ON CONFLICT ("hash") DO UPDATE SET "expiresAt" = EXCLUDED."expiresAt" WHERE "SpentChallenge"."expiresAt" <= ${now}
      RETURNING "hash"`;
    return rows.length === 1;
  }

  async putIfAbsent(id: string, value: string, expiresAtMs: number): Promise<string | undefined> {
    const now = new Date();
    const rows = await this.prisma.$queryRaw<unknown[]>`
      INSERT INTO "SpentChallenge" ("hash", "expiresAt", "value") VALUES (${id}, ${new Date(expiresAtMs)}, ${value})
      ON CONFLICT ("hash") DO UPDATE SET "expiresAt" = EXCLUDED."expiresAt", "value" = EXCLUDED."value"
        WHERE "SpentChallenge"."expiresAt" <= ${now}
      RETURNING "hash"`;
    if (rows.length === 1) return undefined;
    return (await this.get(id)) ?? '';
  }

  async replace(id: string, value: string, expiresAtMs: number): Promise<void> {
    await this.prisma
      .$executeRaw`UPDATE "SpentChallenge" SET "value" = ${value}, "expiresAt" = ${new Date(expiresAtMs)} WHERE "hash" = ${id}`;
  }

  async get(id: string): Promise<string | undefined> {
    const rows = await this.prisma.$queryRaw<Array<{ value: string | null }>>`
      SELECT "value" FROM "SpentChallenge" WHERE "hash" = ${id} AND "expiresAt" > ${new Date()}`;
    return rows[0] === undefined ? undefined : (rows[0].value ?? '');
  }

  sweep(now = new Date()): Promise<{ count: number }> {
    return this.prisma.spentChallenge.deleteMany({ where: { expiresAt: { lte: now } } });
  }

  close(): Promise<void> {
    clearInterval(this.sweeper);
    return Promise.resolve();
  }
}

/**
 * Redis's store, shared by every instance: `SET id 1 NX PXAT expiresAt`, which one claim wins.
 * When Redis does not answer in time, the claim goes to the database instead, so an id is never
 * claimed twice while Redis is away (its claims there are not in Redis: an id claimed in the
 * database during an outage could be claimed once more in Redis afterwards, until it expires).
 */
export class RedisSpentStore implements SpentStore {
  private readonly logger = new Logger(RedisSpentStore.name);
  private readonly redis: RedisClient;
  private degraded = false;

  constructor(
    target: RedisTarget,
    private readonly prefix: string,
    private readonly fallback: SpentStore,
    commandTimeoutMs = 250,
    /** Where each claim's round trip is observed (the metrics' Redis call latency). */
    private readonly timed?: { observe(seconds: number): void },
  ) {
    this.redis = connectRedis(target, {
      commandTimeout: commandTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(times * 100, 2000),
    });
    this.redis.on('error', () => undefined); // reported once per outage, below
  }

  /** Resolves when Redis answers or after 2 s: a Redis that is down does not keep the API from starting. */
  ready(): Promise<void> {
    return firstConnectionAttempt(this.redis);
  }

  claim(id: string, expiresAtMs: number): Promise<boolean> {
    if (expiresAtMs <= Date.now()) return Promise.resolve(false);
    return this.orFallback(
      async () => {
        const started = performance.now();
        const set = await this.redis.set(this.prefix + id, '1', 'PXAT', expiresAtMs, 'NX');
        this.timed?.observe((performance.now() - started) / 1000);
        return set === 'OK';
      },
      () => this.fallback.claim(id, expiresAtMs),
    );
  }

  putIfAbsent(id: string, value: string, expiresAtMs: number): Promise<string | undefined> {
    return this.orFallback(
      async () => {
        if ((await this.redis.set(this.prefix + id, value, 'PXAT', expiresAtMs, 'NX')) === 'OK') return undefined;
        return (await this.redis.get(this.prefix + id)) ?? '';
      },
      () => this.fallback.putIfAbsent(id, value, expiresAtMs),
    );
  }

  replace(id: string, value: string, expiresAtMs: number): Promise<void> {
    return this.orFallback(
      async () => void (await this.redis.set(this.prefix + id, value, 'PXAT', expiresAtMs)),
      () => this.fallback.replace(id, value, expiresAtMs),
    );
  }

  get(id: string): Promise<string | undefined> {
    return this.orFallback(
      async () => (await this.redis.get(this.prefix + id)) ?? undefined,
      () => this.fallback.get(id),
    );
  }

  /** Redis's answer, or the database's while Redis does not answer (as claim does). */
  private async orFallback<T>(inRedis: () => Promise<T>, inDatabase: () => Promise<T>): Promise<T> {
    try {
      const result = await inRedis();
      if (this.degraded) {
        this.degraded = false;
        this.logger.warn('Redis answers again; single use is decided in Redis again');
      }
      return result;
    } catch (err) {
      if (!this.degraded) {
        this.degraded = true;
        this.logger.warn(`Redis does not answer (${(err as Error).message}); single use is decided in the database meanwhile`);
      }
      return inDatabase();
    }
  }

  async close(): Promise<void> {
    await this.fallback.close();
    this.redis.disconnect();
  }
}

import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { EmbeddedVacuum } from '../../src/prisma/embedded-vacuum';
import { applyMigrations, committedMigrations } from '../../src/prisma/migrations';
import { USAGE_RETENTION_MS, UsageRecorder } from '../../src/usage/usage.recorder';
import { createAccount, onRealServices, startApp, TestApp } from '../utils/test-app';

const usageOf = async (t: TestApp, subjectId: string) =>
  (await t.prisma.usageCounter.aggregate({ where: { subjectId }, _sum: { count: true } }))._sum.count ?? 0;

describe('usage recording', () => {
  it('loses no count on a clean stop: the last batch is written on shutdown', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-usage-'));
    // A flush interval far beyond the test: only the shutdown can write these counts.
    const env = { DATA_DIR: dataDir, JWT_SECRET: randomBytes(32).toString('hex'), USAGE_FLUSH_INTERVAL_MS: '60000' };
    try {
      const first = await startApp(env);
      const { key, id } = await (await createAccount(first)).createKey();
      for (let i = 0; i < 3; i++) await first.http.get('/api/v1/public/ping').set('X-Api-Key', key).expect(200);
      expect(await usageOf(first, id)).toBe(0);
      await first.close();

      const second = await startApp(env);
      try {
        expect(await usageOf(second, id)).toBe(3);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  // Breaks its own in-memory database, so only on the embedded default.
  (onRealServices ? it.skip : it)(
    'keeps serving when a flush fails, and writes the counts with the next one',
    async () => {
      const t = await startApp({ USAGE_FLUSH_INTERVAL_MS: '60000' });
      try {
        const { key, id } = await (await createAccount(t)).createKey();
        const recorder = t.app.get(UsageRecorder);
        await t.prisma.$executeRawUnsafe('ALTER TABLE "UsageCounter" RENAME TO "UsageCounterGone"');
        for (let i = 0; i < 2; i++) await t.http.get('/api/v1/public/ping').set('X-Api-Key', key).expect(200);
        await recorder.flush(); // fails, keeps the counts
        for (let i = 0; i < 2; i++) await t.http.get('/api/v1/public/ping').set('X-Api-Key', key).expect(200);
        await t.prisma.$executeRawUnsafe('ALTER TABLE "UsageCounterGone" RENAME TO "UsageCounter"');
        await recorder.flush();
        expect(await usageOf(t, id)).toBe(4);
      } finally {
        await t.close();
      }
    },
    60_000,
  );
});

describe('usage rows', () => {
  it('shows in analytics the requests answered a moment ago, with no flush in between', async () => {
    const t = await startApp({ USAGE_FLUSH_INTERVAL_MS: '60000' });
    try {
      const account = await createAccount(t);
      const { key } = await account.createKey();
      for (let i = 0; i < 3; i++) await t.http.get('/api/v1/public/ping').set('X-Api-Key', key).expect(200);
      const res = await t.http
        .get('/api/v1/analytics/usage')
        .query({ groupBy: 'apiKey', endpoint: 'GET /api/v1/public/ping' })
        .set('Authorization', `Bearer ${account.owner.token}`)
        .expect(200);
      expect(res.body.data.map((r: { count: number }) => r.count)).toEqual([3]);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('keeps one row per key, endpoint, status and minute, however often it is written', async () => {
    const t = await startApp({ USAGE_FLUSH_INTERVAL_MS: '60000' });
    try {
      const { key, id } = await (await createAccount(t)).createKey();
      const recorder = t.app.get(UsageRecorder);
      for (let round = 0; round < 4; round++) {
        for (let i = 0; i < 2; i++) await t.http.get('/api/v1/public/ping').set('X-Api-Key', key).expect(200);
        await recorder.flush();
      }
      const rows = await t.prisma.usageCounter.findMany({ where: { subjectId: id }, select: { minute: true, count: true } });
      // Four writes, in one minute or (at a minute's turn) two: one row per minute either way.
      expect(new Set(rows.map((r) => r.minute.getTime())).size).toBe(rows.length);
      expect(rows.length).toBeLessThanOrEqual(2);
      expect(rows.reduce((n, r) => n + r.count, 0)).toBe(8);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('merges, when the database is upgraded, the rows that earlier versions appended for one bucket', async () => {
    const db = new PGlite();
    try {
      const merging = '20261124010010_usage_one_row_per_bucket';
      await applyMigrations(
        db,
        committedMigrations().filter((m) => m.name < merging),
      );
      const [a, k1, k2] = [randomUUID(), randomUUID(), randomUUID()];
      const rows: Array<[string, string, number, string, number]> = [
        [k1, 'GET /api/v1/public/ping', 200, '2026-11-20T10:00:00Z', 5],
        [k1, 'GET /api/v1/public/ping', 200, '2026-11-20T10:00:00Z', 7],
        [k1, 'GET /api/v1/public/ping', 200, '2026-11-20T10:00:00Z', 1],
        [k1, 'GET /api/v1/public/ping', 429, '2026-11-20T10:00:00Z', 2],
        [k1, 'GET /api/v1/public/ping', 200, '2026-11-20T10:01:00Z', 4],
        [k2, 'GET /api/v1/public/ping', 200, '2026-11-20T10:00:00Z', 3],
        [k2, 'GET /api/v1/public/ping', 200, '2026-11-20T10:00:00Z', 3],
      ];
      for (const [subject, endpoint, status, minute, count] of rows) {
        await db.query(
          `INSERT INTO "UsageCounter" ("accountId", "subjectKind", "subjectId", "endpoint", "status", "minute", "count") VALUES ($1, 'apiKey', $2, $3, $4, $5, $6)`,
          [a, subject, endpoint, status, minute, count],
        );
      }
      expect(await applyMigrations(db)).toContain(merging);
      const { rows: merged } = await db.query<{ s: string; st: number; m: string; c: number }>(
        `SELECT "subjectId"::text AS s, "status" AS st, to_char("minute", 'HH24:MI') AS m, "count" AS c FROM "UsageCounter" ORDER BY 1, 2, 3`,
      );
      expect(merged).toEqual(
        [
          { s: k1, st: 200, m: '10:00', c: 13 },
          { s: k1, st: 200, m: '10:01', c: 4 },
          { s: k1, st: 429, m: '10:00', c: 2 },
          { s: k2, st: 200, m: '10:00', c: 6 },
        ].sort((x, y) => (x.s === y.s ? 0 : x.s < y.s ? -1 : 1)),
      );
    } finally {
      await db.close();
    }
  });
});

describe('usage retention', () => {
  it('purges counts older than 400 days and keeps the rest', async () => {
    const t = await startApp({ USAGE_FLUSH_INTERVAL_MS: '60000' });
    try {
      const account = await createAccount(t);
      const { id } = await account.createKey();
      const row = {
        accountId: account.id,
        subjectKind: 'apiKey',
        subjectId: id,
        endpoint: 'GET /api/v1/public/ping',
        status: 200,
        count: 1,
      };
      await t.prisma.usageCounter.createMany({
        data: [
          { ...row, minute: new Date(Date.now() - USAGE_RETENTION_MS - 60_000) },
          { ...row, minute: new Date(Date.now() - 60_000) },
        ],
      });
      await t.app.get(UsageRecorder).purge();
      expect(await usageOf(t, id)).toBe(1);
    } finally {
      await t.close();
    }
  }, 60_000);

  // PostgreSQL vacuums on its own; PGlite has no autovacuum, so Gatehouse runs it there.
  (onRealServices ? it.skip : it)(
    'gives the space of purged rows back to the embedded database',
    async () => {
      const t = await startApp({ USAGE_FLUSH_INTERVAL_MS: '60000' });
      try {
        const [recorder, vacuum] = [t.app.get(UsageRecorder), t.app.get(EmbeddedVacuum)];
        const rows = (n: number, age: string) =>
          t.prisma.$executeRawUnsafe(`
          INSERT INTO "UsageCounter" ("accountId", "subjectKind", "subjectId", "endpoint", "status", "minute", "count")
          SELECT gen_random_uuid(), 'apiKey', gen_random_uuid(), 'GET /api/v1/public/ping', 200, now() - interval '${age}', 1
          FROM generate_series(1, ${n})`);
        const size = async () =>
          Number((await t.prisma.$queryRawUnsafe<Array<{ n: bigint }>>(`SELECT pg_relation_size('"UsageCounter"') AS n`))[0].n);
        await rows(20000, '401 days');
        await rows(1000, '1 day'); // kept, behind the purged ones: the file cannot just be cut short
        expect(await recorder.purge()).toBe(20000);
        await vacuum.run();
        const settled = await size();
        for (let day = 0; day < 3; day++) {
          await rows(20000, '401 days');
          await recorder.purge();
          await vacuum.run();
        }
        expect(settled).toBeGreaterThan(0);
        expect(await size()).toBe(settled); // without the vacuum: four times as large
      } finally {
        await t.close();
      }
    },
    60_000,
  );
});

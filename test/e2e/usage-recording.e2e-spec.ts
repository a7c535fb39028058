import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedVacuum } from '../../src/prisma/embedded-vacuum';
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
  (onRealServices ? it.skip : it)('keeps serving when a flush fails, and writes the counts with the next one', async () => {
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
  }, 60_000);
});

describe('usage retention', () => {
  it('purges counts older than 400 days and keeps the rest', async () => {
    const t = await startApp({ USAGE_FLUSH_INTERVAL_MS: '60000' });
    try {
      const account = await createAccount(t);
      const { id } = await account.createKey();
      const row = { accountId: account.id, subjectKind: 'apiKey', subjectId: id, endpoint: 'GET /api/v1/public/ping', status: 200, count: 1 };
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
  (onRealServices ? it.skip : it)('gives the space of purged rows back to the embedded database', async () => {
    const t = await startApp({ USAGE_FLUSH_INTERVAL_MS: '60000' });
    try {
      const [recorder, vacuum] = [t.app.get(UsageRecorder), t.app.get(EmbeddedVacuum)];
      const rows = (n: number, age: string) =>
        t.prisma.$executeRawUnsafe(`
          INSERT INTO "UsageCounter" ("accountId", "subjectKind", "subjectId", "endpoint", "status", "minute", "count")
          SELECT gen_random_uuid(), 'apiKey', gen_random_uuid(), 'GET /api/v1/public/ping', 200, now() - interval '${age}', 1
          FROM generate_series(1, ${n})`);
      const size = async () => Number((await t.prisma.$queryRawUnsafe<Array<{ n: bigint }>>(`SELECT pg_relation_size('"UsageCounter"') AS n`))[0].n);
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
  }, 60_000);
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';
import { toAppError } from '../../src/http/app-exception.filter';
import { applyMigrations } from '../../src/prisma/migrations';
import { createAccount, onRealServices, startApp } from '../utils/test-app';

describe('embedded database', () => {
  (onRealServices ? it.skip : it)(
    "opens a data directory written with PGlite's own settings, keeps its data, and runs with the smaller buffers",
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-embedded-'));
      try {
        // PGlite as shipped: a 128 MB buffer pool and 4 MB of WAL buffers.
        const stock = new PGlite(join(dataDir, 'pglite'));
        await applyMigrations(stock);
        expect((await stock.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0].shared_buffers).toBe('128MB');
        await stock.query(
          `INSERT INTO "Plan" (id, name, "apiRequestsPerMinute", "managementRequestsPerMinute") VALUES ('written-before', 'Written before', 7, 8)`,
        );
        await stock.close();

        const t = await startApp({ DATA_DIR: dataDir });
        try {
          expect(await t.prisma.plan.findUnique({ where: { id: 'written-before' } })).toMatchObject({ apiRequestsPerMinute: 7 });
          const settings = await t.prisma.$queryRawUnsafe<Array<{ name: string; setting: string }>>(
            `SELECT name, current_setting(name) AS setting FROM unnest(ARRAY['shared_buffers', 'wal_buffers']) AS name`,
          );
          expect(Object.fromEntries(settings.map((s) => [s.name, s.setting]))).toEqual({ shared_buffers: '8MB', wal_buffers: '1MB' });
        } finally {
          await t.close();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  (onRealServices ? it.skip : it)(
    'a write that arrives while a backup copies the database waits for the copy; one that cannot start in time is a 503 to retry',
    async () => {
      const t = await startApp();
      try {
        const { owner } = await createAccount(t);
        const pglite = t.prisma.pglite!;
        const auth = `Bearer ${owner.token}`;
        expect((await t.http.get('/api/v1/api-keys').set('Authorization', auth)).status).toBe(200);
        // The backup's copy holds PGlite's lock (src/prisma/backup-socket.ts) for 3 s, longer than
        // Prisma's default wait for a transaction to start.
        let copied = 0;
        const copy = pglite._runExclusiveTransaction(async () => {
          await sleep(3000);
          copied = Date.now();
        });
        const res = await t.http.post('/api/v1/api-keys').set('Authorization', auth).send({ name: 'made during a backup' });
        const answered = Date.now();
        await copy;
        expect(res.status).toBe(201);
        expect(answered).toBeGreaterThanOrEqual(copied);

        // A transaction that started past its maxWait (as on a PostgreSQL pool with no free
        // connection): Prisma's own error, answered 503 with Retry-After, not a 500.
        const held = pglite._runExclusiveTransaction(() => sleep(500));
        const late = await t.prisma.$transaction(() => Promise.resolve(), { maxWait: 50 }).catch((err: unknown) => err);
        await held;
        expect(toAppError(late)).toMatchObject({ status: 503, code: 'service_unavailable', retryAfterSeconds: 1 });
      } finally {
        await t.close();
      }
    },
    60_000,
  );
});

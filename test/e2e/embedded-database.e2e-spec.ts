import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { applyMigrations } from '../../src/prisma/migrations';
import { onRealServices, startApp } from '../utils/test-app';

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
});

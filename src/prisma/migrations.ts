import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/** prisma/migrations, from src/prisma or dist/prisma alike. */
export const MIGRATIONS_DIR = resolve(__dirname, '../../prisma/migrations');

export interface Migration {
  readonly name: string;
  readonly sql: string;
  /** As Prisma records it: sha256 hex of migration.sql. */
  readonly checksum: string;
}

export function committedMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies the committed migrations to the embedded PGlite in-process, each in one transaction,
 * with Prisma's own `_prisma_migrations` bookkeeping so `prisma migrate status/deploy` agree.
 * Why not the CLI: PGlite is single-process (the CLI and the app cannot both hold the directory)
 * and the CLI spends ~10 s in a schema-engine timer before it exits. PostgreSQL uses the CLI.
 */
export async function applyMigrations(db: PGlite, migrations = committedMigrations()): Promise<string[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum" VARCHAR(64) NOT NULL,
    "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL,
    "logs" TEXT,
    "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count" INTEGER NOT NULL DEFAULT 0
  )`);
  const { rows } = await db.query<{ migration_name: string; finished_at: Date | null }>(
    `SELECT migration_name, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
  );
  const done = new Map(rows.map((r) => [r.migration_name, r]));
  const applied: string[] = [];
  for (const m of migrations) {
    const previous = done.get(m.name);
    if (previous !== undefined) {
      if (previous.finished_at === null) throw new Error(`Migration ${m.name} failed earlier; resolve it with prisma migrate resolve`);
      continue;
    }
    await db.transaction(async (tx) => {
      await tx.exec(m.sql);
      await tx.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), now(), 1)`,
        [randomUUID(), m.checksum, m.name],
      );
    });
    applied.push(m.name);
  }
  return applied;
}

/** Names of committed migrations a database has not applied (PostgreSQL: run `npm run db:migrate`). */
export function pendingMigrations(applied: ReadonlyArray<string>, migrations = committedMigrations()): string[] {
  const done = new Set(applied);
  return migrations.filter((m) => !done.has(m.name)).map((m) => m.name);
}

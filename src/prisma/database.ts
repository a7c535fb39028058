import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { AppConfig } from '../config/app-config';
import { applyMigrations } from './migrations';
import { pgliteModule } from './pglite-module';

/** DATA_DIR=memory:// keeps the embedded database in memory (tests, demos). */
export const IN_MEMORY = 'memory://';

/** The driver adapter Prisma talks through, and how to release what it holds. */
export interface Database {
  readonly kind: 'embedded' | 'postgres';
  readonly adapter: PrismaPGlite | PrismaPg;
  close(): Promise<void>;
}

export async function openDatabase(config: AppConfig): Promise<Database> {
  if (config.databaseUrl !== undefined) {
    // @prisma/adapter-pg@7.10 maps `name` columns that 6.19's adapter breaks on (prisma/orm#27403).
    // Bounded waits, so an unreachable or frozen PostgreSQL answers a fast 503 instead of hanging.
    const adapter = new PrismaPg({ connectionString: config.databaseUrl, max: 10, connectionTimeoutMillis: 2000, query_timeout: 5000 });
    return { kind: 'postgres', adapter, close: async () => undefined };
  }
  let dir = IN_MEMORY;
  if (config.dataDir !== IN_MEMORY) {
    dir = join(config.dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
  }
  const wasmModule = await pgliteModule();
  if (wasmModule === undefined)
    new Logger('Database').warn('This PGlite build does not hold the expected built-in settings: running with its 128 MB buffer pool');
  let pglite = new PGlite(dir, { wasmModule });
  const applied = await applyMigrations(pglite);
  if (applied.length > 0 && config.env !== 'test') new Logger('Database').log(`Applied migrations: ${applied.join(', ')}`);
  if (applied.length > 0 && dir !== IN_MEMORY) {
    // WebAssembly memory only grows: the migrations' high-water mark (~50 MiB on a new database)
    // would stay for the life of the process. A fresh instance on the migrated directory starts low.
    await pglite.close();
    pglite = new PGlite(dir, { wasmModule });
    await pglite.waitReady;
  }
  if (config.env === 'production')
    new Logger('Database').warn(`Embedded database in ${dir}: data and rate limits are local to this instance`);
  // $disconnect() leaves PGlite open, and an open PGlite keeps the process alive.
  return { kind: 'embedded', adapter: new PrismaPGlite(pglite), close: () => pglite.close() };
}

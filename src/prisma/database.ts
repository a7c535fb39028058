import { Logger } from '@nestjs/common';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { type AppConfig, IN_MEMORY } from '../config/app-config';
import { completeDatabaseDirectory, lockDataDir } from './embedded-directory';
import { applyMigrations } from './migrations';
import { pgliteModule } from './pglite-module';

/** The driver adapter Prisma talks through, and how to release what it holds. */
export interface Database {
  readonly kind: 'embedded' | 'postgres';
  readonly adapter: PrismaPGlite | PrismaPg;
  /** The embedded database itself, for what must talk to it beside Prisma (the webhook queue). */
  readonly pglite?: PGlite;
  close(): Promise<void>;
}

export async function openDatabase(config: AppConfig): Promise<Database> {
  if (config.databaseUrl !== undefined) {
    // @prisma/adapter-pg@7.10 maps `name` columns that 6.19's adapter breaks on (prisma/orm#27403).
    // Bounded waits, so an unreachable or frozen PostgreSQL answers a fast 503 instead of hanging.
    const adapter = new PrismaPg({ connectionString: config.databaseUrl, max: 10, connectionTimeoutMillis: 2000, query_timeout: 5000 });
    return { kind: 'postgres', adapter, close: () => Promise.resolve() };
  }
  const logger = new Logger('Database');
  const wasmModule = await pgliteModule();
  if (wasmModule === undefined)
    logger.warn('This PGlite build does not hold the expected built-in settings: running with its 128 MB buffer pool');
  /** True when it applied any. */
  const migrate = async (pglite: PGlite): Promise<boolean> => {
    const applied = await applyMigrations(pglite);
    if (applied.length > 0 && config.env !== 'test') logger.log(`Applied migrations: ${applied.join(', ')}`);
    return applied.length > 0;
  };
  // $disconnect() leaves PGlite open, and an open PGlite keeps the process alive: close() closes it.
  if (config.dataDir === IN_MEMORY) {
    const pglite = new PGlite(IN_MEMORY, { wasmModule });
    await migrate(pglite);
    return { kind: 'embedded', adapter: new PrismaPGlite(pglite), pglite, close: () => pglite.close() };
  }

  const release = lockDataDir(config.dataDir);
  try {
    const dir = await completeDatabaseDirectory(config.dataDir, async (creating) => {
      const pglite = new PGlite(creating, { wasmModule });
      await migrate(pglite);
      await pglite.close();
    });
    const open = async () => {
      const pglite = new PGlite(dir, { wasmModule });
      await pglite.waitReady.catch((err: Error) => {
        throw new Error(
          `The embedded database in ${dir} does not open (${err.message}). It holds tables, so it is left as it is: ` +
            `restore it from a backup, or delete it to start with an empty database`,
        );
      });
      return pglite;
    };
    let pglite = await open();
    if (await migrate(pglite)) {
      // WebAssembly memory only grows: the migrations' high-water mark would stay for the life of
      // the process. A fresh instance on the migrated directory starts low (a new database was
      // migrated, in the same way, by an instance of its own).
      await pglite.close();
      pglite = await open();
    }
    if (config.env === 'production') logger.warn(`Embedded database in ${dir}: data and rate limits are local to this instance`);
    return {
      kind: 'embedded',
      adapter: new PrismaPGlite(pglite),
      pglite,
      close: async () => {
        await pglite.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

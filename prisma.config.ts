import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite as PGliteDatabase } from '@electric-sql/pglite';
import { defineConfig, type PrismaConfig } from 'prisma/config';

// The Prisma CLI, offline: engine "js" runs migrations in the bundled WASM schema engine through a
// driver adapter. DATABASE_URL set: PostgreSQL (`npm run db:migrate` = migrate deploy). Unset: the
// embedded PGlite under ${DATA_DIR:-./data}/pglite, where new migrations are made
// (scripts/new-migration.sh; the app applies them itself on start, see src/prisma/migrations.ts).
const databaseUrl = process.env.DATABASE_URL || undefined;
// The CLI reads env("DATABASE_URL") before it looks at the adapter and, without it, falls back to
// downloading a native engine (which fails offline). With engine "js" the URL is never used.
if (databaseUrl === undefined) process.env.DATABASE_URL = 'postgresql://embedded@localhost/pglite';

/** What the CLI's adapter() answers with engine "js". */
type AdapterFactory = Awaited<ReturnType<Extract<PrismaConfig, { engine: 'js' }>['adapter']>>;
type Adapter = Awaited<ReturnType<AdapterFactory['connect']>>;
/** PrismaPGlite's adapter maps PGlite's errors to Prisma's in a method of its own, outside the interface. */
type PGliteAdapter = Adapter & { onError(error: unknown): never };

async function pgliteFactory(dir: string): Promise<AdapterFactory> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PrismaPGlite } = await import('pglite-prisma-adapter');
  mkdirSync(dir, { recursive: true });
  const pglite = new PGlite(dir);
  const main = new PrismaPGlite(pglite);
  // pglite-prisma-adapter@0.7 workarounds for the CLI only: executeScript() does not await, and
  // parameterless executeRaw goes through the extended protocol, which refuses multi-statement
  // migration scripts in the shadow database (P3006). Route both through exec(), as pg does.
  const patch = (connected: Adapter, db: PGliteDatabase): Adapter => {
    const adapter = connected as PGliteAdapter;
    const executeRaw = adapter.executeRaw.bind(adapter);
    adapter.executeRaw = async (q) => {
      if (q.args.length > 0) return executeRaw(q);
      try {
        await db.exec(q.sql);
      } catch (e) {
        adapter.onError(e);
      }
      return 0;
    };
    adapter.executeScript = async (sql) => {
      try {
        await db.exec(sql);
      } catch (e) {
        adapter.onError(e);
      }
    };
    return adapter;
  };
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: async () => patch(await main.connect(), pglite),
    connectToShadowDb: async () => {
      const shadow = new PGlite();
      const adapter = patch(await new PrismaPGlite(shadow).connect(), shadow);
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await shadow.close();
      };
      return adapter;
    },
  };
}

// The CLI calls adapter() more than once per command; a PGlite directory opens once per process.
let factory: Promise<AdapterFactory> | undefined;

export default defineConfig({
  schema: join('prisma', 'schema.prisma'),
  migrations: { path: join('prisma', 'migrations') },
  experimental: { adapter: true },
  engine: 'js',
  adapter() {
    factory ??=
      databaseUrl !== undefined
        ? import('@prisma/adapter-pg').then(({ PrismaPg }) => new PrismaPg({ connectionString: databaseUrl }))
        : pgliteFactory(join(process.env.DATA_DIR || './data', 'pglite'));
    return factory;
  },
});

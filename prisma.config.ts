import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'prisma/config';

// DATABASE_URL set: real PostgreSQL through @prisma/adapter-pg. Unset: the embedded PGlite under
// ${DATA_DIR:-./data}/pglite. The CLI reads env("DATABASE_URL") before it looks at the adapter, and
// without it falls back to downloading a native engine (which fails offline): hence the placeholder.
const databaseUrl = process.env.DATABASE_URL || undefined;
if (databaseUrl === undefined) process.env.DATABASE_URL = 'postgresql://embedded@localhost/pglite';

export default defineConfig({
  schema: join('prisma', 'schema.prisma'),
  migrations: { path: join('prisma', 'migrations') },
  experimental: { adapter: true },
  engine: 'js',
  async adapter() {
    if (databaseUrl !== undefined) {
      const { PrismaPg } = await import('@prisma/adapter-pg');
      return new PrismaPg({ connectionString: databaseUrl });
    }
    const { PGlite } = await import('@electric-sql/pglite');
    const { PrismaPGlite } = await import('pglite-prisma-adapter');
    const dir = join(process.env.DATA_DIR || './data', 'pglite');
    mkdirSync(dir, { recursive: true });
    // pglite-prisma-adapter@0.6's types lag @prisma/client@6.19; the runtime interface matches.
    return new PrismaPGlite(new PGlite(dir)) as never;
  },
});

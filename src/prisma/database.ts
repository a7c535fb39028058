import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { AppConfig } from '../config/app-config';
import type { Prisma } from '../generated/prisma/client';

type Adapter = NonNullable<Prisma.PrismaClientOptions['adapter']>;

/** The driver adapter Prisma talks through, and how to release what it holds. */
export interface Database {
  readonly kind: 'embedded' | 'postgres';
  readonly adapter: Adapter;
  close(): Promise<void>;
}

/** A PGlite instance already open (tests load a migrated template into memory). */
export function embeddedDatabase(pglite: PGlite): Database {
  return {
    kind: 'embedded',
    // pglite-prisma-adapter@0.6's types lag @prisma/client@6.19; the runtime interface matches.
    adapter: new PrismaPGlite(pglite) as unknown as Adapter,
    // $disconnect() leaves PGlite open, and an open PGlite keeps the process alive.
    close: () => pglite.close(),
  };
}

export function openDatabase(config: AppConfig): Database {
  if (config.databaseUrl !== undefined) {
    // @prisma/adapter-pg@7.10 maps `name` columns that 6.19's adapter breaks on (prisma/orm#27403).
    const adapter = new PrismaPg({ connectionString: config.databaseUrl, max: 10 }) as unknown as Adapter;
    return { kind: 'postgres', adapter, close: async () => undefined };
  }
  const dir = join(config.dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  return embeddedDatabase(new PGlite(dir));
}

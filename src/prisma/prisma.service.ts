import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { Metrics } from '../metrics/metrics';
import { Database } from './database';
import { pendingMigrations } from './migrations';

export const DATABASE = Symbol('DATABASE');

/** The generated client over the chosen adapter (embedded PGlite or PostgreSQL). */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleInit {
  constructor(
    @Inject(DATABASE) private readonly database: Database,
    metrics: Metrics,
  ) {
    // With metrics on, every statement's duration from Prisma's query events (README, "Metrics").
    super(metrics.enabled ? { adapter: database.adapter, log: [{ emit: 'event', level: 'query' }] } : { adapter: database.adapter });
    if (metrics.enabled) {
      const queries = metrics.dbQueries;
      (this as PrismaClient<'query'>).$on('query', (e) => queries.observe(e.duration / 1000));
    }
  }

  get kind(): Database['kind'] {
    return this.database.kind;
  }

  /** The embedded database (PGlite), or undefined on PostgreSQL. */
  get pglite(): Database['pglite'] {
    return this.database.pglite;
  }

  /** PostgreSQL is migrated by `npm run db:migrate`; refuse to serve on a schema that is behind. */
  async onModuleInit(): Promise<void> {
    if (this.database.kind !== 'postgres') return;
    const applied = await this.$queryRaw<Array<{ migration_name: string }>>`
      SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`.catch(() => []);
    const pending = pendingMigrations(applied.map((r) => r.migration_name));
    if (pending.length > 0) throw new Error(`The database lacks migrations ${pending.join(', ')}: run \`npm run db:migrate\` first`);
  }

  async ping(): Promise<void> {
    await this.$queryRaw`SELECT 1`;
  }

  /** Last of all at shutdown (see Lifecycle): $disconnect() alone would leave PGlite open. */
  async close(): Promise<void> {
    await this.$disconnect();
    await this.database.close();
  }
}

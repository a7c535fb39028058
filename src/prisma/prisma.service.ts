import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { Metrics } from '../metrics/metrics';
import { Database } from './database';
import { pendingMigrations } from './migrations';

export const DATABASE = Symbol('DATABASE');

/**
 * Prisma's `maxWait` for a transaction to start on the embedded database: the longest a timer
 * takes, so none. It does not cut a wait short: Prisma waits for the adapter to start the
 * transaction, then rolls it back and fails if that took longer. On PGlite the start waits for the
 * one lock every statement takes in turn, and a backup's copy holds (docs/DECISIONS.md, "Backups
 * of the embedded database"); Prisma's own 2 s only failed writes that arrived during a copy.
 */
const EMBEDDED_TRANSACTION_WAIT_MS = 2 ** 31 - 1;

/** The generated client over the chosen adapter (embedded PGlite or PostgreSQL). */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleInit {
  constructor(
    @Inject(DATABASE) private readonly database: Database,
    metrics: Metrics,
  ) {
    super({
      adapter: database.adapter,
      ...(database.kind === 'embedded' && { transactionOptions: { maxWait: EMBEDDED_TRANSACTION_WAIT_MS } }),
      // With metrics on, every statement's duration from Prisma's query events (README, "Metrics").
      ...(metrics.enabled && { log: [{ emit: 'event', level: 'query' }] }),
    });
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

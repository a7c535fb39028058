import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { PrismaService } from './prisma.service';

const VACUUM_INTERVAL_MS = 3600_000;

/**
 * PGlite runs PostgreSQL as a single backend, without autovacuum: the space of rows that purges
 * delete (nonces every minute, usage after 400 days) and of row versions that updates replace
 * (`lastUsedAt`, usage buckets written again) would never be reused, and the planner would never
 * get statistics. So, on the embedded database only, `VACUUM (ANALYZE)` every hour: what
 * autovacuum does on PostgreSQL. It runs on the event loop; on a 540,000-row usage table with a
 * tenth of it dead it took 130–180 ms (docs/DECISIONS.md).
 */
@Injectable()
export class EmbeddedVacuum implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(EmbeddedVacuum.name);
  private timer?: NodeJS.Timeout;

  constructor(private readonly prisma: PrismaService) {}

  onModuleInit(): void {
    if (this.prisma.kind !== 'embedded') return;
    this.timer = setInterval(
      () => void this.run().catch((err: Error) => this.logger.warn(`Vacuum failed: ${err.message}`)),
      VACUUM_INTERVAL_MS,
    );
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async run(): Promise<void> {
    await this.prisma.$executeRawUnsafe('VACUUM (ANALYZE)');
  }
}

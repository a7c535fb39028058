import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { PrismaService } from '../prisma/prisma.service';

/**
 * `lastUsedAt` without a write per request: the newest use of each key is kept in memory and
 * written in one batch every few seconds and on shutdown. A failed batch is merged back and retried.
 */
@Injectable()
export class ApiKeyUsageTracker implements OnModuleInit {
  private readonly logger = new Logger(ApiKeyUsageTracker.name);
  private pending = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly prisma: PrismaService) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), 5_000);
    this.timer.unref();
  }

  touch(keyId: string, at: number): void {
    this.pending.set(keyId, at);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      // One statement for the whole batch, however many keys were used.
      const ids = [...batch.keys()];
      const ats = [...batch.values()].map((at) => new Date(at).toISOString());
      await this.prisma.$executeRaw`
        UPDATE "ApiKey" AS k SET "lastUsedAt" = (v.at::timestamptz AT TIME ZONE 'UTC')
        FROM unnest(${ids}::text[], ${ats}::text[]) AS v(id, at)
        WHERE k."id" = v.id::uuid AND (k."lastUsedAt" IS NULL OR k."lastUsedAt" < (v.at::timestamptz AT TIME ZONE 'UTC'))`;
    } catch (err) {
      for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
      this.logger.warn(`Could not record lastUsedAt for ${batch.size} keys; will retry: ${(err as Error).message}`);
    }
  }

  /** The last flush, once no request can arrive any more (see Lifecycle). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { PrismaService } from '../prisma/prisma.service';

/**
 * `lastUsedAt` without a write per request: the newest use of each key is kept in memory and
 * written in one batch every few seconds and on shutdown. A failed batch is merged back and retried.
 * It is accurate to a minute: a key's use is written when its last write is at least a minute
 * older, so a busy key costs one row update a minute, not one per flush (docs/DECISIONS.md).
 */
const RESOLUTION_MS = 60_000;

@Injectable()
export class ApiKeyUsageTracker implements OnModuleInit {
  private readonly logger = new Logger(ApiKeyUsageTracker.name);
  private pending = new Map<string, number>();
  /** The lastUsedAt each key was last written (or is being written) with. */
  private readonly written = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly prisma: PrismaService) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), 5_000);
    this.timer.unref();
  }

  touch(keyId: string, at: number): void {
    const written = this.written.get(keyId);
    if (written === undefined || at - written >= RESOLUTION_MS) this.pending.set(keyId, at);
  }

  /** The newest use of the key this instance has seen (written or not yet), if within the last minute or so. */
  latestUse(keyId: string): number | undefined {
    const pending = this.pending.get(keyId);
    const written = this.written.get(keyId);
    return pending === undefined ? written : written === undefined ? pending : Math.max(pending, written);
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const now = Date.now();
    for (const [id, at] of this.written) if (now - at >= RESOLUTION_MS) this.written.delete(id); // bounded by recently used keys
    for (const [id, at] of batch) this.written.set(id, at);
    try {
      // One statement for the whole batch, however many keys were used.
      const ids = [...batch.keys()];
      const ats = [...batch.values()].map((at) => new Date(at).toISOString());
      await this.prisma.$executeRaw`
        UPDATE "ApiKey" AS k SET "lastUsedAt" = (v.at::timestamptz AT TIME ZONE 'UTC')
        FROM unnest(${ids}::text[], ${ats}::text[]) AS v(id, at)
        WHERE k."id" = v.id::uuid AND (k."lastUsedAt" IS NULL OR k."lastUsedAt" < (v.at::timestamptz AT TIME ZONE 'UTC'))`;
    } catch (err) {
      for (const [id, at] of batch) {
        this.written.delete(id);
        if (!this.pending.has(id)) this.pending.set(id, at);
      }
      this.logger.warn(`Could not record lastUsedAt for ${batch.size} keys; will retry: ${(err as Error).message}`);
    }
  }

  /** The last flush, once no request can arrive any more (see Lifecycle). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

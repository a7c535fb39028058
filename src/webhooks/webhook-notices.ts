import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PrismaService } from '../prisma/prisma.service';
import { RefusalLog } from '../rate-limit/refusal-log';
import { SurgeLog } from '../widget/surge-log';
import { WebhookEmitter } from './webhook-emitter';
import { expiryNoticeAt } from './webhook-events';
import { WebhookQueue } from './webhook-queue';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** How often refusals noted on the request path become `rate_limit.exceeded` events. */
const REFUSALS_EVERY_MS = 5_000;
/** The `api_key.expiring` check: pg-boss runs it once per slot across all instances. */
const EXPIRY_CHECK = { name: 'api-key-expiry', cron: '*/15 * * * *' } as const;

/**
 * The events nobody's request makes: `rate_limit.exceeded` — a key's first refusal in an hour,
 * with its count — `api_key.expiring`, 7 days and 1 day before a key expires, and
 * `widget.surge_started` / `widget.surge_ended`. Each is claimed on the key's row (`rateLimitNoticeAt`,
 * `expiryNoticeDays`, `surgeStartedAt`) in the transaction that emits it, so however many instances
 * see the same thing, one event goes out (docs/WEBHOOKS.md, "Events").
 */
@Injectable()
export class WebhookNotices implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookNotices.name);
  private timer?: NodeJS.Timeout;
  /** Keys noticed within the hour: their refusals need no database call until then. */
  private readonly noticedUntil = new Map<string, number>();

  constructor(
    private readonly prisma: PrismaService,
    private readonly refusals: RefusalLog,
    private readonly surges: SurgeLog,
    private readonly emitter: WebhookEmitter,
    queue: WebhookQueue,
  ) {
    queue.schedule(EXPIRY_CHECK.name, EXPIRY_CHECK.cron, () => this.reportExpiringKeys().then(() => undefined));
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      void this.reportRefusals().catch((err: Error) => this.logger.warn(`Rate-limit events: ${err.message}`));
      void this.reportSurges().catch((err: Error) => this.logger.warn(`Surge events: ${err.message}`));
    }, REFUSALS_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One `rate_limit.exceeded` per key and hour, for the keys refused since the last call. */
  async reportRefusals(now = Date.now()): Promise<void> {
    for (const [keyId, until] of this.noticedUntil) if (until <= now) this.noticedUntil.delete(keyId);
    for (const r of this.refusals.drain()) {
      if (this.noticedUntil.has(r.keyId)) continue;
      await this.prisma.$transaction(async (tx) => {
        const claimed = await tx.apiKey.updateMany({
          where: { id: r.keyId, OR: [{ rateLimitNoticeAt: null }, { rateLimitNoticeAt: { lte: new Date(now - HOUR_MS) } }] },
          data: { rateLimitNoticeAt: new Date(now) },
        });
        if (claimed.count === 0) return;
        const key = await tx.apiKey.findUniqueOrThrow({ where: { id: r.keyId }, select: { name: true } });
        await this.emitter.emit(tx, r.accountId, 'rate_limit.exceeded', {
          apiKey: { id: r.keyId, name: key.name },
          endpoint: r.endpoint,
          limit: r.limit,
          refused: r.refused,
        });
      });
      this.noticedUntil.set(r.keyId, now + HOUR_MS); // claimed here or by another instance: quiet for the hour
    }
  }

  /**
   * `widget.surge_started` when a key begins surging and `widget.surge_ended` when it stops, once per
   * surge however many instances see it: the key's `surgeStartedAt` is set by the first instance to
   * report the start and cleared by the first to report the end, each in the transaction that emits.
   * Answers how many starts and ends this instance noticed, and how many of them it sent.
   */
  async reportSurges(now = new Date()): Promise<{ noticed: number; sent: number }> {
    const changes = this.surges.drain(now.getTime());
    let sent = 0;
    for (const change of changes) {
      await this.prisma.$transaction(async (tx) => {
        const claimed = await tx.apiKey.updateMany({
          where: { id: change.keyId, surgeStartedAt: change.started ? null : { not: null } },
          data: { surgeStartedAt: change.started ? now : null },
        });
        if (claimed.count === 0) return;
        const key = await tx.apiKey.findUniqueOrThrow({ where: { id: change.keyId }, select: { name: true } });
        const apiKey = { id: change.keyId, name: key.name };
        if (change.started) await this.emitter.emit(tx, change.accountId, 'widget.surge_started', { apiKey, level: change.level });
        else await this.emitter.emit(tx, change.accountId, 'widget.surge_ended', { apiKey });
        sent += 1;
      });
    }
    return { noticed: changes.length, sent };
  }

  /**
   * `api_key.expiring` for active keys expiring within 7 days (the week's notice), then within 1 (the
   * last day's), once each, with the whole days left (expiryNoticeAt); answers how many were sent.
   */
  async reportExpiringKeys(now = new Date()): Promise<number> {
    const inAWeek = new Date(now.getTime() + 7 * DAY_MS);
    const keys = await this.prisma.apiKey.findMany({
      where: { status: 'active', expiresAt: { gt: now, lte: inAWeek }, OR: [{ expiryNoticeDays: null }, { expiryNoticeDays: { gt: 1 } }] },
      select: { id: true, accountId: true, name: true, prefix: true, expiresAt: true },
    });
    let sent = 0;
    for (const key of keys) {
      const expiresAt = key.expiresAt!;
      const due = expiryNoticeAt(expiresAt, now);
      if (due === null) continue;
      await this.prisma.$transaction(async (tx) => {
        const claimed = await tx.apiKey.updateMany({
          where: { id: key.id, OR: [{ expiryNoticeDays: null }, { expiryNoticeDays: { gt: due.notice } }] },
          data: { expiryNoticeDays: due.notice },
        });
        if (claimed.count === 0) return;
        await this.emitter.emit(tx, key.accountId, 'api_key.expiring', {
          apiKey: { id: key.id, name: key.name, prefix: key.prefix, expiresAt: expiresAt.toISOString() },
          daysLeft: due.daysLeft,
        });
        sent += 1;
      });
    }
    return sent;
  }
}

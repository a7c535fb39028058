import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { AuditService } from '../audit/audit.service';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { Prisma, WebhookDelivery, WebhookEndpoint } from '../generated/prisma/client';
import { Mailer } from '../mail/mailer';
import { Metrics } from '../metrics/metrics';
import { PrismaService } from '../prisma/prisma.service';
import { DISABLE_AFTER_FAILING_MS, nextAttemptAt, RESPONSE_BODY_LIMIT } from './webhook-events';
import { WebhookQueue } from './webhook-queue';
import { SendOutcome, WebhookSender } from './webhook-sender';

/** Why Gatehouse disabled an endpoint (WebhookEndpoint.disabledReason). */
type DisabledReason = 'gone' | 'failing';

/**
 * Makes one attempt of a delivery, as a job of the queue on whichever instance took it: signs the
 * body as Standard Webhooks says (with the endpoint's secret, and during a rotation's grace period
 * with the old one too), POSTs it, and records the attempt and what follows in one transaction —
 * delivered (2xx), the next attempt enqueued (nextAttemptAt), failed (no attempt left), or the
 * endpoint disabled (410, or failing for 5 days; audited, OWNERs and ADMINs e-mailed).
 * Runs at least once per attempt: an instance that dies mid-attempt leaves the job to expire and be
 * taken again, and the receiver then sees the same `webhook-id` again.
 */
@Injectable()
export class WebhookDeliverer implements OnApplicationBootstrap {
  private readonly logger = new Logger(WebhookDeliverer.name);
  private readonly sender: WebhookSender;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly prisma: PrismaService,
    private readonly queue: WebhookQueue,
    private readonly audit: AuditService,
    private readonly mailer: Mailer,
    private readonly metrics: Metrics,
  ) {
    this.sender = new WebhookSender(config.webhookAllowPrivate);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.start((job) => this.attempt(job.deliveryId));
  }

  /**
   * Stops taking jobs; called by Lifecycle before the database closes. An attempt in flight is cut
   * short and not recorded: its job fails and is taken again within seconds by another instance (or
   * by this one after a restart), with the same webhook-id.
   */
  async stop(): Promise<void> {
    this.sender.abortAll();
    await this.queue.stop();
    this.sender.close();
  }

  async attempt(deliveryId: string): Promise<void> {
    const delivery = await this.prisma.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { endpoint: true } });
    // Gone with its endpoint or account, or settled by an earlier run of this job.
    if (delivery === null || delivery.status !== 'pending') return;
    const { endpoint } = delivery;
    if (!endpoint.enabled && delivery.eventType !== 'webhook.test') {
      await this.prisma.webhookDelivery.update({ where: { id: delivery.id }, data: { status: 'failed', nextAttemptAt: null } });
      return;
    }
    const body = JSON.stringify(delivery.payload);
    const outcome = await this.sender.send(endpoint.url, this.headers(delivery, endpoint, body), body);
    if (outcome.aborted) throw new Error('Delivery attempt cut short: this instance is stopping'); // the queue retries the job
    await this.record(delivery, endpoint, outcome);
  }

  private headers(delivery: WebhookDelivery, endpoint: WebhookEndpoint, body: string): Record<string, string> {
    const now = new Date();
    const secrets = [endpoint.secret];
    if (endpoint.previousSecret !== null && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now)
      secrets.push(endpoint.previousSecret);
    return {
      'content-type': 'application/json',
      'user-agent': 'Gatehouse-Webhooks/1',
      'webhook-id': delivery.messageId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': secrets.map((s) => new Webhook(s).sign(delivery.messageId, now, body)).join(' '),
    };
  }

  private async record(delivery: WebhookDelivery, endpoint: WebhookEndpoint, outcome: SendOutcome): Promise<void> {
    const now = new Date();
    const delivered = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    const gone = outcome.status === 410;
    const error =
      outcome.error ??
      (delivered
        ? null
        : outcome.status !== undefined && outcome.status >= 300 && outcome.status < 400
          ? 'redirects are not followed'
          : null);
    const attemptCount = delivery.attemptCount + 1;
    const failingSince = delivered ? null : (endpoint.failingSince ?? now);
    let disable: DisabledReason | undefined;
    if (gone) disable = 'gone';
    else if (!delivered && now.getTime() - failingSince!.getTime() >= DISABLE_AFTER_FAILING_MS) disable = 'failing';
    if (delivery.eventType === 'webhook.test' && !endpoint.enabled) disable = undefined; // a test of a disabled endpoint changes nothing
    const next = delivered || gone || disable !== undefined ? null : nextAttemptAt(attemptCount, now);

    await this.prisma.$transaction(async (tx) => {
      await tx.webhookAttempt.create({
        data: {
          deliveryId: delivery.id,
          startedAt: new Date(now.getTime() - outcome.durationMs),
          durationMs: outcome.durationMs,
          responseStatus: outcome.status ?? null,
          error,
          responseBody: outcome.body === undefined ? null : outcome.body.slice(0, RESPONSE_BODY_LIMIT),
        },
      });
      await tx.webhookDelivery.update({
        where: { id: delivery.id },
        data: {
          attemptCount,
          lastResponseStatus: outcome.status ?? null,
          status: delivered ? 'delivered' : next === null ? 'failed' : 'pending',
          deliveredAt: delivered ? now : null,
          nextAttemptAt: next,
        },
      });
      if (next !== null) await this.queue.enqueue(tx, [delivery.id], next);
      if (endpoint.enabled) await tx.webhookEndpoint.update({ where: { id: endpoint.id }, data: { failingSince } });
      if (disable !== undefined && endpoint.enabled) await this.disable(tx, endpoint, disable);
    });
    this.metrics.webhookDelivery(delivered ? 'delivered' : next !== null ? 'retrying' : 'failed');
    if (disable !== undefined && endpoint.enabled) await this.tellAdmins(endpoint, disable);
  }

  private async disable(tx: Prisma.TransactionClient, endpoint: WebhookEndpoint, reason: DisabledReason): Promise<void> {
    await tx.webhookEndpoint.update({ where: { id: endpoint.id }, data: { enabled: false, disabledReason: reason } });
    await tx.webhookDelivery.updateMany({
      where: { endpointId: endpoint.id, status: 'pending' },
      data: { status: 'failed', nextAttemptAt: null },
    });
    await this.audit.record(tx, {
      accountId: endpoint.accountId,
      action: 'webhook.disabled',
      requestId: `webhook-${endpoint.id}`,
      ip: null, // Gatehouse's own doing, outside any request
      target: { type: 'webhook', id: endpoint.id },
      details: { url: endpoint.url, reason },
    });
  }

  /** With SMTP_URL: the account's OWNERs and ADMINs learn that an endpoint was disabled and why. */
  private async tellAdmins(endpoint: WebhookEndpoint, reason: DisabledReason): Promise<void> {
    this.logger.warn(`Webhook endpoint ${endpoint.id} disabled (${reason})`);
    if (!this.mailer.enabled) return;
    const admins = await this.prisma.user.findMany({
      where: { accountId: endpoint.accountId, role: { in: ['OWNER', 'ADMIN'] } },
      select: { email: true },
    });
    const why =
      reason === 'gone' ? 'it answered 410 Gone, which says it no longer wants events' : 'every delivery to it has failed for 5 days';
    for (const { email } of admins)
      this.mailer.sendLater(
        {
          to: email,
          subject: 'Gatehouse disabled a webhook endpoint',
          text:
            `Gatehouse stopped sending events to ${endpoint.url} because ${why}.\n\n` +
            `Its deliveries and their answers are on the Webhooks page: ${this.mailer.publicUrl}/webhooks\n` +
            'Enable it there once the receiver works again; then retry the deliveries you need.\n',
        },
        'a disabled webhook endpoint notice',
      );
  }
}

import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../generated/prisma/client';
import type { WebhookEventData, WebhookEventType } from './webhook-events';
import { WebhookQueue } from './webhook-queue';

/** The body of every delivery: what happened, when, and to what. */
export interface WebhookPayload<T extends WebhookEventType = WebhookEventType> {
  readonly type: T;
  readonly timestamp: string;
  readonly data: WebhookEventData[T];
}

/**
 * Turns an event into deliveries: one per enabled endpoint of the account that subscribes to its type,
 * written and enqueued in `tx`, the transaction of the change the event reports. Rolled back, the
 * change sends nothing; committed, its deliveries are in the queue (docs/WEBHOOKS.md, "Delivery").
 */
@Injectable()
export class WebhookEmitter {
  constructor(private readonly queue: WebhookQueue) {}

  async emit<T extends WebhookEventType>(
    tx: Prisma.TransactionClient,
    accountId: string,
    type: T,
    data: WebhookEventData[T],
  ): Promise<void> {
    const endpoints = await tx.webhookEndpoint.findMany({ where: { accountId, enabled: true }, select: { id: true, events: true } });
    const targets = endpoints.filter((e) => e.events.length === 0 || e.events.includes(type));
    if (targets.length === 0) return;
    await this.deliver(
      tx,
      accountId,
      targets.map((e) => e.id),
      { type, timestamp: new Date().toISOString(), data },
    );
  }

  /** Another attempt of a delivery, now (a person's retry). */
  requeue(tx: Prisma.TransactionClient, deliveryId: string): Promise<void> {
    return this.queue.enqueue(tx, [deliveryId]);
  }

  /** Deliveries of `payload` to these endpoints of the account (for `webhook.test`: one, enabled or not). */
  async deliver(
    tx: Prisma.TransactionClient,
    accountId: string,
    endpointIds: readonly string[],
    payload: WebhookPayload,
  ): Promise<string[]> {
    const now = new Date();
    const rows = endpointIds.map((endpointId) => ({
      id: randomUUID(),
      accountId,
      endpointId,
      messageId: `msg_${randomUUID().replaceAll('-', '')}`,
      eventType: payload.type,
      payload: payload as unknown as Prisma.InputJsonObject,
      nextAttemptAt: now,
    }));
    await tx.webhookDelivery.createMany({ data: rows });
    await this.queue.enqueue(
      tx,
      rows.map((r) => r.id),
    );
    return rows.map((r) => r.id);
  }
}

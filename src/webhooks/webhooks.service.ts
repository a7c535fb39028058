import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AuditService } from '../audit/audit.service';
import type { Actor } from '../common/current-principal.decorator';
import { AppError } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { Prisma, WebhookDelivery, WebhookEndpoint } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { UpdateWebhookEndpointDto } from './dto/update-webhook-endpoint.dto';
import { WebhookDeliveryDto, WebhookDeliveryPageDto } from './dto/webhook-delivery.dto';
import { CreatedWebhookEndpointDto, RotatedWebhookSecretDto, WebhookEndpointDto } from './dto/webhook-endpoint.dto';
import { checkWebhookUrl } from './url-policy';
import { WebhookEmitter } from './webhook-emitter';
import type { WebhookEventType } from './webhook-events';

const PAGE_SIZE = 25;

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

type EndpointWithLast = WebhookEndpoint & { deliveries: WebhookDelivery[] };

const toDto = (w: EndpointWithLast): WebhookEndpointDto => {
  const last = w.deliveries[0];
  return {
    id: w.id,
    url: w.url,
    description: w.description,
    events: w.events as WebhookEventType[],
    enabled: w.enabled,
    disabledReason: w.disabledReason as WebhookEndpointDto['disabledReason'],
    previousSecretExpiresAt:
      w.previousSecretExpiresAt !== null && w.previousSecretExpiresAt > new Date() ? w.previousSecretExpiresAt.toISOString() : null,
    lastDeliveryAt: last?.createdAt.toISOString() ?? null,
    lastDeliveryStatus: (last?.status ?? null) as WebhookEndpointDto['lastDeliveryStatus'],
    lastDeliveryResponseStatus: last?.lastResponseStatus ?? null,
    createdAt: w.createdAt.toISOString(),
  };
};

const withLast = { deliveries: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 1 } } satisfies Prisma.WebhookEndpointInclude;

/** Cursor: base64url of "<createdAt ISO>|<id>" of the last delivery on the page. */
function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const createdAt = new Date(at ?? '');
  if (Number.isNaN(createdAt.getTime()) || !/^[0-9a-f-]{36}$/.test(id ?? ''))
    throw new AppError('validation_failed', 'cursor is not a nextCursor value.', [
      { field: 'cursor', message: 'cursor must be a nextCursor value' },
    ]);
  return { createdAt, id };
}

const notFound = () => new AppError('not_found', 'No such webhook endpoint.');

/**
 * Webhook endpoints of the caller's account (docs/WEBHOOKS.md); every query is scoped by accountId,
 * so another account's id answers 404 as if absent. Every change is audited in its transaction.
 */
@Injectable()
export class WebhooksService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly prisma: PrismaService,
    private readonly audit: AuditService,
    private readonly emitter: WebhookEmitter,
  ) {}

  async list(actor: Actor): Promise<WebhookEndpointDto[]> {
    const rows = await this.prisma.webhookEndpoint.findMany({
      where: { accountId: actor.accountId },
      include: withLast,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
    return rows.map(toDto);
  }

  async get(actor: Actor, id: string): Promise<WebhookEndpointDto> {
    const row = await this.prisma.webhookEndpoint.findFirst({ where: { id, accountId: actor.accountId }, include: withLast });
    if (row === null) throw notFound();
    return toDto(row);
  }

  async create(actor: Actor, dto: CreateWebhookEndpointDto): Promise<CreatedWebhookEndpointDto> {
    const url = await checkWebhookUrl(dto.url, this.config.webhookAllowPrivate);
    const secret = newSecret();
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.webhookEndpoint.create({
        data: {
          accountId: actor.accountId,
          url: url.href,
          description: dto.description ?? null,
          events: dto.events ?? [],
          secret,
          createdById: actor.userId,
        },
        include: withLast,
      });
      await this.audit.recordBy(tx, actor, 'webhook.created', { type: 'webhook', id: row.id }, { url: row.url, events: row.events });
      return { ...toDto(row), secret };
    });
  }

  async update(actor: Actor, id: string, dto: UpdateWebhookEndpointDto): Promise<WebhookEndpointDto> {
    const url = dto.url === undefined ? undefined : (await checkWebhookUrl(dto.url, this.config.webhookAllowPrivate)).href;
    return this.prisma.$transaction(async (tx) => {
      const before = await tx.webhookEndpoint.findFirst({ where: { id, accountId: actor.accountId } });
      if (before === null) throw notFound();
      const enabling = dto.enabled === true && !before.enabled;
      const row = await tx.webhookEndpoint.update({
        where: { id },
        data: {
          url,
          description: dto.description,
          events: dto.events,
          enabled: dto.enabled,
          ...(dto.enabled === undefined ? {} : { disabledReason: null }),
          ...(enabling ? { failingSince: null } : {}),
        },
        include: withLast,
      });
      const changes: Prisma.InputJsonObject = {
        ...(url === undefined ? {} : { url }),
        ...(dto.description === undefined ? {} : { description: dto.description }),
        ...(dto.events === undefined ? {} : { events: dto.events }),
        ...(dto.enabled === undefined ? {} : { enabled: dto.enabled }),
      };
      await this.audit.recordBy(tx, actor, 'webhook.updated', { type: 'webhook', id }, changes);
      return toDto(row);
    });
  }

  async remove(actor: Actor, id: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const { count } = await tx.webhookEndpoint.deleteMany({ where: { id, accountId: actor.accountId } });
      if (count === 0) throw notFound();
      await this.audit.recordBy(tx, actor, 'webhook.deleted', { type: 'webhook', id });
    });
  }

  async rotateSecret(actor: Actor, id: string, gracePeriodSeconds = 0): Promise<RotatedWebhookSecretDto> {
    const secret = newSecret();
    return this.prisma.$transaction(async (tx) => {
      const before = await tx.webhookEndpoint.findFirst({ where: { id, accountId: actor.accountId } });
      if (before === null) throw notFound();
      const previousSecretExpiresAt = gracePeriodSeconds > 0 ? new Date(Date.now() + gracePeriodSeconds * 1000) : null;
      await tx.webhookEndpoint.update({
        where: { id },
        data: { secret, previousSecret: previousSecretExpiresAt === null ? null : before.secret, previousSecretExpiresAt },
      });
      await this.audit.recordBy(tx, actor, 'webhook.secret_rotated', { type: 'webhook', id }, { gracePeriodSeconds });
      return { secret, previousSecretExpiresAt: previousSecretExpiresAt?.toISOString() ?? null };
    });
  }

  /** A `webhook.test` delivery to this endpoint, enabled or not. */
  async sendTest(actor: Actor, id: string): Promise<string> {
    return this.prisma.$transaction(async (tx) => {
      const endpoint = await tx.webhookEndpoint.findFirst({ where: { id, accountId: actor.accountId } });
      if (endpoint === null) throw notFound();
      const [deliveryId] = await this.emitter.deliver(tx, actor.accountId, [id], {
        type: 'webhook.test',
        timestamp: new Date().toISOString(),
        data: { endpoint: { id, url: endpoint.url }, message: 'A test event sent from Gatehouse.' },
      });
      await this.audit.recordBy(tx, actor, 'webhook.test_sent', { type: 'webhook', id });
      return deliveryId;
    });
  }

  async deliveries(actor: Actor, id: string, cursor?: string): Promise<WebhookDeliveryPageDto> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const endpoint = await this.prisma.webhookEndpoint.findFirst({ where: { id, accountId: actor.accountId }, select: { id: true } });
    if (endpoint === null) throw notFound();
    const rows = await this.prisma.webhookDelivery.findMany({
      where: {
        endpointId: id,
        ...(after === undefined
          ? {}
          : { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
      },
      include: { attempts: { orderBy: { startedAt: 'desc' }, take: 20 } },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: PAGE_SIZE + 1,
    });
    const page = rows.slice(0, PAGE_SIZE);
    const last = page[page.length - 1];
    return {
      data: page.map((d): WebhookDeliveryDto => ({
        id: d.id,
        messageId: d.messageId,
        eventType: d.eventType as WebhookEventType,
        status: d.status as WebhookDeliveryDto['status'],
        attemptCount: d.attemptCount,
        nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
        createdAt: d.createdAt.toISOString(),
        deliveredAt: d.deliveredAt?.toISOString() ?? null,
        attempts: d.attempts.map((a) => ({
          startedAt: a.startedAt.toISOString(),
          durationMs: a.durationMs,
          responseStatus: a.responseStatus,
          error: a.error,
          responseBody: a.responseBody,
        })),
      })),
      nextCursor:
        rows.length > PAGE_SIZE && last !== undefined
          ? Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString('base64url')
          : null,
    };
  }

  /**
   * Another attempt of a delivery, now, with the same webhook-id. One that is still pending has an
   * attempt scheduled already: 409.
   */
  async retry(actor: Actor, id: string, deliveryId: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const delivery = await tx.webhookDelivery.findFirst({
        where: { id: deliveryId, endpointId: id, accountId: actor.accountId },
        include: { endpoint: { select: { enabled: true } } },
      });
      if (delivery === null) throw new AppError('not_found', 'No such delivery of this webhook endpoint.');
      if (!delivery.endpoint.enabled) throw new AppError('conflict', 'The endpoint is disabled: enable it before retrying its deliveries.');
      if (delivery.status === 'pending') throw new AppError('conflict', 'This delivery is pending: its next attempt is already scheduled.');
      await tx.webhookDelivery.update({ where: { id: deliveryId }, data: { status: 'pending', nextAttemptAt: new Date() } });
      await this.emitter.requeue(tx, deliveryId);
      await this.audit.recordBy(tx, actor, 'webhook.delivery_retried', { type: 'webhook', id }, { deliveryId });
    });
  }
}

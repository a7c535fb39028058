import { Injectable } from '@nestjs/common';
import type { UserPrincipal } from '../common/principal';
import { AppError } from '../common/errors/app-error';
import type { WebhookEndpoint } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { WebhookEndpointDto } from './dto/webhook-endpoint.dto';

const toDto = (w: WebhookEndpoint): WebhookEndpointDto => ({
  id: w.id,
  url: w.url,
  description: w.description,
  createdAt: w.createdAt.toISOString(),
});

/** Webhook endpoints of the caller's account; every query is scoped by accountId. */
@Injectable()
export class WebhooksService {
  constructor(private readonly prisma: PrismaService) {}

  async list(actor: UserPrincipal): Promise<WebhookEndpointDto[]> {
    const rows = await this.prisma.webhookEndpoint.findMany({ where: { accountId: actor.accountId }, orderBy: { createdAt: 'desc' } });
    return rows.map(toDto);
  }

  async create(actor: UserPrincipal, dto: CreateWebhookEndpointDto): Promise<WebhookEndpointDto> {
    const row = await this.prisma.webhookEndpoint.create({
      data: { accountId: actor.accountId, url: dto.url, description: dto.description ?? null, createdById: actor.userId },
    });
    return toDto(row);
  }

  /** Another account's id answers 404, as if absent (docs/API.md, "Endpoints"). */
  async remove(actor: UserPrincipal, id: string): Promise<void> {
    const { count } = await this.prisma.webhookEndpoint.deleteMany({ where: { id, accountId: actor.accountId } });
    if (count === 0) throw new AppError('not_found', 'No such webhook endpoint.');
  }
}

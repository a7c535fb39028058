import { Inject, Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import type { Actor } from '../common/current-principal.decorator';
import { API_KEY_SCOPES, ApiKeyScope, TestVerdict, UserPrincipal } from '../common/principal';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AppError } from '../common/errors/app-error';
import type { ApiKey } from '../generated/prisma/client';
import { CacheInvalidation } from '../cache/invalidation.service';
import { PrismaService } from '../prisma/prisma.service';
import { WebhookEmitter } from '../webhooks/webhook-emitter';
import type { Prisma } from '../generated/prisma/client';
import { generateApiKey, hashApiKey, visiblePrefix } from './api-key-secret';
import { ApiKeyUsageTracker } from './api-key-usage.tracker';
import { ApiKeyDto, ApiKeyWithSecretDto } from './dto/api-key.dto';
import { CreateApiKeyDto } from './dto/create-api-key.dto';
import { UpdateApiKeyDto } from './dto/update-api-key.dto';

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

/**
 * A key whose one scope is `widget` is public by nature (it sits in every page that embeds the
 * widget), so its secret is kept readable (docs/DECISIONS.md, "Widget keys are readable"); any
 * other scope makes a key a secret, kept only as a hash.
 */
export const isWidgetOnly = (scopes: readonly ApiKeyScope[]): boolean => scopes.length === 1 && scopes[0] === 'widget';

export function toApiKeyDto(k: ApiKey): ApiKeyDto {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    allowedOrigins: k.allowedOrigins,
    widgetKey: k.status === 'active' ? k.widgetKey : null,
    challengeWaitMs: k.challengeWaitMs,
    testVerdict: k.testVerdict as TestVerdict | null,
    status: k.status,
    expiresAt: iso(k.expiresAt),
    lastUsedAt: iso(k.lastUsedAt),
    previousSecretExpiresAt: k.previousHash !== null ? iso(k.previousHashExpiresAt) : null,
    createdAt: k.createdAt.toISOString(),
    revokedAt: iso(k.revokedAt),
  };
}

/** API keys of the caller's account. Another account's key answers 404, as if absent. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly invalidation: CacheInvalidation,
    private readonly audit: AuditService,
    private readonly webhooks: WebhookEmitter,
    private readonly usage: ApiKeyUsageTracker,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The key as answered, its `lastUsedAt` including a use this instance has not written yet (they
   * are written in batches every few seconds), so a key just used does not read "never".
   */
  private dto(k: ApiKey): ApiKeyDto {
    const dto = toApiKeyDto(k);
    const latest = this.usage.latestUse(k.id);
    if (latest !== undefined && (k.lastUsedAt === null || k.lastUsedAt.getTime() < latest)) {
      return { ...dto, lastUsedAt: new Date(latest).toISOString() };
    }
    return dto;
  }

  /**
   * Names are unique among an account's active keys (docs/DECISIONS.md, "API key names"): 409
   * `conflict` naming the clash. The account's row is locked first, so two requests choosing the
   * same name at once cannot both pass.
   */
  private async checkNameFree(tx: Prisma.TransactionClient, accountId: string, name: string, exceptId?: string): Promise<void> {
    await tx.$queryRaw`SELECT 1 FROM "Account" WHERE "id" = ${accountId}::uuid FOR NO KEY UPDATE`;
    const clash = await tx.apiKey.findFirst({
      where: { accountId, name, status: 'active', ...(exceptId !== undefined && { id: { not: exceptId } }) },
      select: { prefix: true },
    });
    if (clash !== null) {
      throw new AppError('conflict', `An active key is named "${name}" already (${clash.prefix}…): choose another name.`);
    }
  }

  /** A test key verifies only: refused in production, and with any scope but `verify`. */
  private checkTestKey(scopes: readonly ApiKeyScope[]): void {
    if (this.config.env === 'production') {
      throw new AppError('validation_failed', 'Test keys are refused in production.', [
        { field: 'testVerdict', message: 'test keys are refused when NODE_ENV=production' },
      ]);
    }
    if (scopes.length !== 1 || scopes[0] !== 'verify') {
      throw new AppError('validation_failed', 'A test key has the verify scope only.', [
        { field: 'scopes', message: 'a test key has exactly the verify scope' },
      ]);
    }
  }

  async list(actor: UserPrincipal): Promise<ApiKeyDto[]> {
    const keys = await this.prisma.apiKey.findMany({ where: { accountId: actor.accountId }, orderBy: { createdAt: 'desc' } });
    return keys.map((k) => this.dto(k));
  }

  async get(actor: UserPrincipal, id: string): Promise<ApiKeyDto> {
    return this.dto(await this.find(actor, id));
  }

  async create(actor: Actor, dto: CreateApiKeyDto): Promise<ApiKeyWithSecretDto> {
    const expiresAt = dto.expiresAt === undefined ? null : new Date(dto.expiresAt);
    if (expiresAt !== null && expiresAt.getTime() <= Date.now()) {
      throw new AppError('validation_failed', 'expiresAt must be in the future.', [
        { field: 'expiresAt', message: 'expiresAt must be in the future' },
      ]);
    }
    const scopes = dto.scopes ?? [...API_KEY_SCOPES];
    if (dto.testVerdict !== undefined) this.checkTestKey(scopes);
    const key = generateApiKey();
    const row = await this.prisma.$transaction(async (tx) => {
      await this.checkNameFree(tx, actor.accountId, dto.name);
      const created = await tx.apiKey.create({
        data: {
          accountId: actor.accountId,
          name: dto.name,
          prefix: visiblePrefix(key),
          hash: hashApiKey(key),
          widgetKey: isWidgetOnly(scopes) ? key : null,
          scopes,
          allowedOrigins: dto.allowedOrigins ?? [],
          challengeWaitMs: dto.challengeWaitMs ?? null,
          testVerdict: dto.testVerdict ?? null,
          expiresAt,
        },
      });
      await this.audit.recordBy(
        tx,
        actor,
        'api_key.created',
        { type: 'api_key', id: created.id },
        {
          name: created.name,
          scopes: created.scopes,
          allowedOrigins: created.allowedOrigins,
          ...(created.testVerdict !== null && { testVerdict: created.testVerdict }),
        },
      );
      await this.webhooks.emit(tx, actor.accountId, 'api_key.created', {
        apiKey: {
          id: created.id,
          name: created.name,
          prefix: created.prefix,
          scopes: created.scopes,
          expiresAt: created.expiresAt?.toISOString() ?? null,
        },
        actor: { id: actor.userId, email: actor.email },
      });
      return created;
    });
    return { ...toApiKeyDto(row), key };
  }

  async update(actor: Actor, id: string, dto: UpdateApiKeyDto): Promise<ApiKeyDto> {
    const current = await this.find(actor, id);
    if (current.widgetKey !== null && dto.scopes !== undefined && !isWidgetOnly(dto.scopes)) {
      throw new AppError(
        'conflict',
        'This widget key is public (it is readable and sits in your pages), so it cannot gain the verify or public scope: create a separate key for those.',
      );
    }
    if (current.testVerdict !== null && dto.scopes !== undefined) this.checkTestKey(dto.scopes);
    const row = await this.prisma.$transaction(async (tx) => {
      if (dto.name !== undefined && dto.name !== current.name && current.status === 'active') {
        await this.checkNameFree(tx, actor.accountId, dto.name, current.id);
      }
      const updated = await tx.apiKey.update({
        where: { id: current.id },
        data: { name: dto.name, scopes: dto.scopes, allowedOrigins: dto.allowedOrigins, challengeWaitMs: dto.challengeWaitMs },
      });
      await this.audit.recordBy(tx, actor, 'api_key.updated', { type: 'api_key', id: updated.id }, { ...dto });
      return updated;
    });
    this.invalidation.invalidate('apiKeyHash', row.hash, row.previousHash);
    return this.dto(row);
  }

  /** Revoking is for good and idempotent: a revoked key answers as it is. */
  async revoke(actor: Actor, id: string): Promise<ApiKeyDto> {
    const current = await this.find(actor, id);
    if (current.status === 'revoked') return this.dto(current);
    const row = await this.prisma.$transaction(async (tx) => {
      const revoked = await tx.apiKey.update({
        where: { id: current.id },
        data: { status: 'revoked', revokedAt: new Date(), previousHash: null, previousHashExpiresAt: null, widgetKey: null },
      });
      await this.audit.recordBy(tx, actor, 'api_key.revoked', { type: 'api_key', id: revoked.id }, { name: revoked.name });
      await this.webhooks.emit(tx, actor.accountId, 'api_key.revoked', {
        apiKey: { id: revoked.id, name: revoked.name, prefix: revoked.prefix },
        actor: { id: actor.userId, email: actor.email },
      });
      return revoked;
    });
    this.invalidation.invalidate('apiKeyHash', current.hash, current.previousHash);
    return this.dto(row);
  }

  /** A new secret; the old one keeps working for `gracePeriodSeconds` (0: stops at once), then never. */
  async rotate(actor: Actor, id: string, gracePeriodSeconds = 0): Promise<ApiKeyWithSecretDto> {
    const current = await this.find(actor, id);
    if (current.status === 'revoked') throw new AppError('conflict', 'A revoked key cannot be rotated.');
    const key = generateApiKey();
    const graceful = gracePeriodSeconds > 0;
    const row = await this.prisma.$transaction(async (tx) => {
      const rotated = await tx.apiKey.update({
        where: { id: current.id },
        data: {
          hash: hashApiKey(key),
          prefix: visiblePrefix(key),
          widgetKey: isWidgetOnly(current.scopes) ? key : null,
          previousHash: graceful ? current.hash : null,
          previousHashExpiresAt: graceful ? new Date(Date.now() + gracePeriodSeconds * 1000) : null,
        },
      });
      await this.audit.recordBy(tx, actor, 'api_key.rotated', { type: 'api_key', id: rotated.id }, { gracePeriodSeconds });
      return rotated;
    });
    this.invalidation.invalidate('apiKeyHash', current.hash, current.previousHash);
    return { ...this.dto(row), key };
  }

  private async find(actor: UserPrincipal, id: string): Promise<ApiKey> {
    const key = await this.prisma.apiKey.findFirst({ where: { id, accountId: actor.accountId } });
    if (key === null) throw new AppError('not_found', 'No such API key.');
    return key;
  }
}

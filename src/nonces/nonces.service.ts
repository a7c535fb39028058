import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { ApiKeyPrincipal } from '../common/principal';
import { hashOneTimeToken, newOneTimeToken } from '../common/one-time-token';
import { PlanLimitsService } from '../plans/plan-limits.service';
import { isUniqueViolation } from '../prisma/database-errors';
import { PrismaService } from '../prisma/prisma.service';
import { UsageRecorder } from '../usage/usage.recorder';
import { IssuedNonceDto, NONCE_PATTERN, NonceVerdictDto } from './dto/nonce.dto';

/** What a nonce is issued for: the solved challenge (its signature's hash) and the page it was solved on. */
export interface SolvedChallenge {
  readonly challengeHash: string;
  readonly hostname: string | null;
}

/** Used and expired nonces are kept this long after expiry (to answer expired/already_used), then purged. */
export const NONCE_RETENTION_MS = 3600_000;

@Injectable()
export class NoncesService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(NoncesService.name);
  private janitor?: NodeJS.Timeout;

  constructor(
    private readonly prisma: PrismaService,
    private readonly accounts: PlanLimitsService,
    private readonly usage: UsageRecorder,
  ) {}

  onModuleInit(): void {
    this.janitor = setInterval(
      () => void this.purge().catch((err: Error) => this.logger.warn(`Nonce purge failed: ${err.message}`)),
      60_000,
    );
    this.janitor.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.janitor);
  }

  /**
   * A nonce for a solved challenge, or undefined when that challenge already bought one: its hash
   * is unique among nonces, and a nonce row outlives its challenge (TTL + an hour > 5 minutes).
   */
  async issue(key: ApiKeyPrincipal, solved: SolvedChallenge): Promise<IssuedNonceDto | undefined> {
    const { nonceTtlSeconds } = await this.accounts.limitsFor(key.accountId);
    const nonce = newOneTimeToken('ghn');
    const expiresAt = new Date(Date.now() + nonceTtlSeconds * 1000);
    try {
      await this.prisma.nonce.create({
        data: { accountId: key.accountId, apiKeyId: key.keyId, hash: hashOneTimeToken(nonce), expiresAt, ...solved },
      });
    } catch (err) {
      if (isUniqueViolation(err)) return undefined;
      throw err;
    }
    return { nonce, expiresAt: expiresAt.toISOString() };
  }

  /** The verdict, counted as a widget event (valid or invalid) for analytics. */
  async verify(key: ApiKeyPrincipal, nonce: string): Promise<NonceVerdictDto> {
    const verdict = await this.judge(key, nonce);
    this.usage.event(key, verdict.valid ? 'nonce_valid' : 'nonce_invalid');
    return verdict;
  }

  /**
   * Single use by one conditional UPDATE: of any number of concurrent verifications, on any number
   * of instances, the database lets exactly one claim the nonce.
   */
  private async judge(key: ApiKeyPrincipal, nonce: string): Promise<NonceVerdictDto> {
    if (!NONCE_PATTERN.test(nonce)) return { valid: false, reason: 'unknown' }; // never one of ours: no query
    const hash = hashOneTimeToken(nonce);
    const now = new Date();
    const claimed = await this.prisma.$queryRaw<Array<{ createdAt: Date; hostname: string | null }>>`
      UPDATE "Nonce" SET "usedAt" = ${now}
      WHERE "hash" = ${hash} AND "accountId" = ${key.accountId}::uuid AND "usedAt" IS NULL AND "expiresAt" > ${now}
      RETURNING "createdAt", "hostname"`;
    if (claimed[0] !== undefined) return { valid: true, issuedAt: claimed[0].createdAt.toISOString(), hostname: claimed[0].hostname };
    const row = await this.prisma.nonce.findFirst({ where: { hash, accountId: key.accountId }, select: { usedAt: true } });
    if (row === null) return { valid: false, reason: 'unknown' };
    return { valid: false, reason: row.usedAt !== null ? 'already_used' : 'expired' };
  }

  /** Keeps storage bounded under constant traffic: rows live at most TTL + retention. */
  async purge(now = Date.now()): Promise<number> {
    const { count } = await this.prisma.nonce.deleteMany({ where: { expiresAt: { lt: new Date(now - NONCE_RETENTION_MS) } } });
    return count;
  }
}

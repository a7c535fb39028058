import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { ApiKeyPrincipal } from '../common/principal';
import { AppError } from '../common/errors/app-error';
import { hashOneTimeToken } from '../common/one-time-token';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { resolveWidgetSecrets } from '../config/secrets';
import { PlanLimitsService } from '../plans/plan-limits.service';
import { PrismaService } from '../prisma/prisma.service';
import { UsageRecorder } from '../usage/usage.recorder';
import { EffortDto, IssuedNonceDto, NonceVerdictDto } from './dto/nonce.dto';
import { Effort, MAX_HOSTNAME_BYTES, newNonceId, nonceKeys, readNonce, signNonce } from './nonce-token';
import type { SpentStore } from './spent-store';

export const SPENT_STORE = Symbol('SpentStore');

/** What a nonce is issued for: a solved challenge (what marks it spent, and until when) and the page it was solved on. */
export interface SolvedChallenge {
  /** The solution's identity for single use (the hash of its challenge's signature). */
  readonly solutionId: string;
  /** When the challenge expires: after that it is refused anyway, and its single use need not be kept. */
  readonly challengeExpiresAtMs: number;
  readonly hostname: string | null;
  /** What the proof of work cost, carried in the nonce for verify to report. */
  readonly effort: Effort;
}

const effortDto = (e: Effort | null): EffortDto | null =>
  e === null
    ? null
    : { algorithm: e.algorithm, cost: e.cost, expectedSolveMs: e.expectedSolveMs, solveMs: e.solveMs, surge: e.surgeLevel > 0 };

/** Nonces issued before they became signed tokens: "ghn_" + 43 base64url characters, stored as a row each. */
const STORED_NONCE_PATTERN = /^ghn_[A-Za-z0-9_-]{43}$/;
/** Stored nonces are kept this long after expiry (to answer expired/already_used), then purged. */
export const NONCE_RETENTION_MS = 3600_000;

/**
 * Nonces (docs/API.md, "API-key endpoints"): signed tokens that carry their account, issue and expiry times and
 * the page's hostname (nonce-token.ts), so issuing one writes nothing; their single use, and each
 * solution's, is claimed in the SpentStore (Redis, the database, or this process and its data
 * directory) until they expire.
 */
@Injectable()
export class NoncesService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(NoncesService.name);
  private readonly keys: Buffer[];
  private janitor?: NodeJS.Timeout;

  constructor(
    private readonly prisma: PrismaService,
    private readonly accounts: PlanLimitsService,
    private readonly usage: UsageRecorder,
    @Inject(SPENT_STORE) private readonly spent: SpentStore,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.keys = nonceKeys(resolveWidgetSecrets(config));
  }

  onModuleInit(): void {
    this.janitor = setInterval(
      () => void this.purge().catch((err: Error) => this.logger.warn(`Nonce purge failed: ${err.message}`)),
      60_000,
    );
    this.janitor.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.janitor);
    await this.spent.close();
  }

  /**
   * A nonce for a solved challenge, or undefined when that solution already bought one: the
   * solution is claimed once, on whichever instance it reaches first.
   */
  async issue(key: ApiKeyPrincipal, solved: SolvedChallenge): Promise<IssuedNonceDto | undefined> {
    if (solved.hostname !== null && Buffer.byteLength(solved.hostname) > MAX_HOSTNAME_BYTES) {
      throw new AppError('validation_failed', 'The page’s hostname is longer than a DNS name.', [{ field: 'origin', message: 'too long' }]);
    }
    if (!(await this.claimSolution(solved.solutionId, solved.challengeExpiresAtMs))) return undefined;
    const { nonceTtlSeconds } = this.accounts.cached(key.accountId) ?? (await this.accounts.limitsFor(key.accountId));
    const issuedAt = Math.floor(Date.now() / 1000);
    const expiresAt = issuedAt + nonceTtlSeconds;
    const nonce = signNonce(
      { accountId: key.accountId, id: newNonceId(), issuedAt, expiresAt, hostname: solved.hostname, effort: solved.effort },
      this.keys[0],
    );
    return { nonce, expiresAt: new Date(expiresAt * 1000).toISOString() };
  }

  /**
   * Spends a solved challenge (its id, until its challenge expires): true the first time on any
   * instance, false after. Widget solutions (through `issue`) and sign-up's are spent here.
   */
  claimSolution(solutionId: string, challengeExpiresAtMs: number): Promise<boolean> {
    return this.spent.claim(`solution:${solutionId}`, challengeExpiresAtMs);
  }

  /** The verdict, counted as a widget event (valid or invalid) for analytics. */
  async verify(key: ApiKeyPrincipal, nonce: string): Promise<NonceVerdictDto> {
    const verdict = await this.judge(key, nonce);
    this.usage.event(key, verdict.valid ? 'nonce_valid' : 'nonce_invalid');
    return verdict;
  }

  private async judge(key: ApiKeyPrincipal, nonce: string): Promise<NonceVerdictDto> {
    if (STORED_NONCE_PATTERN.test(nonce)) return this.judgeStored(key, nonce);
    const fields = readNonce(nonce, this.keys);
    // Forged, damaged, or another account's: never one of this account's nonces.
    if (fields === undefined || fields.accountId !== key.accountId) return { valid: false, reason: 'unknown' };
    const expiresAtMs = fields.expiresAt * 1000;
    if (expiresAtMs <= Date.now()) return { valid: false, reason: 'expired' };
    if (!(await this.spent.claim(`nonce:${fields.id}`, expiresAtMs))) return { valid: false, reason: 'already_used' };
    return {
      valid: true,
      issuedAt: new Date(fields.issuedAt * 1000).toISOString(),
      hostname: fields.hostname,
      effort: effortDto(fields.effort),
    };
  }

  /**
   * A nonce issued as a row: single use by one conditional UPDATE (of any number of concurrent
   * verifications, on any number of instances, the database lets exactly one claim it).
   */
  private async judgeStored(key: ApiKeyPrincipal, nonce: string): Promise<NonceVerdictDto> {
    const hash = hashOneTimeToken(nonce);
    const now = new Date();
    const claimed = await this.prisma.$queryRaw<Array<{ createdAt: Date; hostname: string | null }>>`
      UPDATE "Nonce" SET "usedAt" = ${now}
      WHERE "hash" = ${hash} AND "accountId" = ${key.accountId}::uuid AND "usedAt" IS NULL AND "expiresAt" > ${now}
      RETURNING "createdAt", "hostname"`;
    if (claimed[0] !== undefined)
      return { valid: true, issuedAt: claimed[0].createdAt.toISOString(), hostname: claimed[0].hostname, effort: null };
    const row = await this.prisma.nonce.findFirst({ where: { hash, accountId: key.accountId }, select: { usedAt: true } });
    if (row === null) return { valid: false, reason: 'unknown' };
    return { valid: false, reason: row.usedAt !== null ? 'already_used' : 'expired' };
  }

  /** Stored nonces go an hour after expiry. */
  async purge(now = Date.now()): Promise<number> {
    const { count } = await this.prisma.nonce.deleteMany({ where: { expiresAt: { lt: new Date(now - NONCE_RETENTION_MS) } } });
    return count;
  }
}

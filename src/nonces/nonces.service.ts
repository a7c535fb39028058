import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { ApiKeyPrincipal, TestVerdict } from '../common/principal';
import { AppError } from '../common/errors/app-error';
import { hashOneTimeToken } from '../common/one-time-token';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { resolveWidgetSecrets } from '../config/secrets';
import { PlanLimitsService } from '../plans/plan-limits.service';
import { PrismaService } from '../prisma/prisma.service';
import { invalidNonceTally, UsageRecorder } from '../usage/usage.recorder';
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

/** An Idempotency-Key's record: the hash of the nonce it was first used with, and its verdict (null while pending). */
interface IdempotencyRecord {
  readonly nonceHash: string;
  readonly verdict: NonceVerdictDto | null;
}

/** A record kept is at least this long, so a retry soon after the first call finds it whatever the nonce. */
const IDEMPOTENCY_MIN_MS = 300_000;
const IDEMPOTENCY_POLL_MS = 50;
const IDEMPOTENCY_WAIT_MS = 2000;

function parseRecord(held: string | undefined): IdempotencyRecord | undefined {
  if (!held) return undefined;
  try {
    return JSON.parse(held) as IdempotencyRecord;
  } catch {
    return undefined;
  }
}

/** A test key's verdict: never a look at the nonce, never counted. */
function testVerdict(verdict: TestVerdict): NonceVerdictDto {
  if (verdict === 'unavailable') throw new AppError('service_unavailable', 'This test key always answers 503.').withRetryAfter(1);
  if (verdict !== 'valid') return { valid: false, reason: verdict };
  return {
    valid: true,
    issuedAt: new Date().toISOString(),
    hostname: 'localhost',
    effort: { algorithm: 'PBKDF2/SHA-256', cost: 1000, expectedSolveMs: 400, solveMs: 450, surge: false },
  };
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

  /**
   * The verdict for verify: a test key's fixed one; else, with an Idempotency-Key, the first
   * verdict of this key and nonce again (`replayed: true`) for as long as the nonce lives, so a
   * retried call cannot burn a good nonce — the same key with another nonce is 422
   * idempotency_key_reused. The key's record is kept where single use is (SpentStore), shared by
   * every instance: pending while the first call judges the nonce, then its verdict; a repeat that
   * finds it pending waits for the verdict (up to 2 s, then 503 with Retry-After).
   */
  async verifyRequest(key: ApiKeyPrincipal, nonce: string, idempotencyKey: string | undefined): Promise<NonceVerdictDto> {
    if (key.testVerdict !== null) return testVerdict(key.testVerdict);
    if (idempotencyKey === undefined) return this.verify(key, nonce);
    const id = `idempotency:${key.accountId}:${hashOneTimeToken(idempotencyKey)}`;
    const nonceHash = hashOneTimeToken(nonce);
    const fields = readNonce(nonce, this.keys);
    const until = Math.max(fields?.accountId === key.accountId ? fields.expiresAt * 1000 : 0, Date.now() + IDEMPOTENCY_MIN_MS);
    const held = await this.spent.putIfAbsent(id, JSON.stringify({ nonceHash, verdict: null } satisfies IdempotencyRecord), until);
    if (held === undefined) {
      try {
        const verdict = await this.verify(key, nonce);
        await this.spent.replace(id, JSON.stringify({ nonceHash, verdict } satisfies IdempotencyRecord), until);
        return verdict;
      } catch (err) {
        // No verdict: give the key up (it expires at once), so a retry judges the nonce itself.
        await this.spent.replace(id, '', Date.now() + 1).catch(() => undefined);
        throw err;
      }
    }
    return this.replay(id, held, nonceHash);
  }

  /** The verdict a record holds, once it holds one; 422 when it is another nonce's. */
  private async replay(id: string, held: string | undefined, nonceHash: string): Promise<NonceVerdictDto> {
    for (let waited = 0; ; waited += IDEMPOTENCY_POLL_MS) {
      const record = parseRecord(held);
      if (record !== undefined && record.nonceHash !== nonceHash) throw new AppError('idempotency_key_reused');
      if (record?.verdict) return { ...record.verdict, replayed: true };
      if (waited >= IDEMPOTENCY_WAIT_MS) {
        throw new AppError('service_unavailable', 'A verification with this Idempotency-Key is still in progress; retry.').withRetryAfter(
          1,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, IDEMPOTENCY_POLL_MS));
      held = await this.spent.get(id);
    }
  }

  /** The verdict, counted as a widget event (valid or invalid, with its reason) for analytics. */
  async verify(key: ApiKeyPrincipal, nonce: string): Promise<NonceVerdictDto> {
    const verdict = await this.judge(key, nonce);
    this.usage.event(key, verdict.valid ? 'nonce_valid' : 'nonce_invalid');
    if (!verdict.valid) this.usage.tally(key, invalidNonceTally(verdict.reason));
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

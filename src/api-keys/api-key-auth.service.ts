import { Inject, Injectable } from '@nestjs/common';
import type { ApiKeyPrincipal, TestVerdict } from '../common/principal';
import { CacheInvalidation } from '../cache/invalidation.service';
import type { ReadThroughCache } from '../cache/read-through-cache';
import { AppError } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { PrismaService } from '../prisma/prisma.service';
import { hashApiKey, isWellFormedApiKey, mayBeApiKey } from './api-key-secret';

interface CachedKey {
  readonly principal: ApiKeyPrincipal;
  readonly expiresAt: number | null;
  /** Set when the looked-up hash is the previous secret of a rotated key (grace period). */
  readonly graceEndsAt: number | null;
  readonly revoked: boolean;
}

/** Nothing answers for this hash: never issued (or rotated away without grace). */
const ABSENT = 0 as const;

/**
 * Resolves an `X-Api-Key` to its principal. Once warm this costs no database round trip: entries
 * (and misses) are cached by hash; revoke, rotate and patch invalidate them at once on
 * every instance (the `apiKeyHash` topic); the refresh (ReadThroughCache) bounds the lag should a message be lost.
 */
@Injectable()
export class ApiKeyAuthService {
  private readonly keys: ReadThroughCache<CachedKey | typeof ABSENT>;
  /** Test keys answer only outside production (docs/API.md, "Test keys"). */
  private readonly testKeysRefused: boolean;

  constructor(
    private readonly prisma: PrismaService,
    invalidation: CacheInvalidation,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.testKeysRefused = config.env === 'production';
    this.keys = invalidation.cache('apiKeyHash', {
      max: 100_000,
      load: (hash) => this.loadMany([hash]).then(([entry]) => entry),
      loadMany: (hashes) => this.loadMany(hashes),
    });
  }

  /** Synchronous once the key is cached (the warm path); a promise when it must be loaded. */
  authenticate(key: string): ApiKeyPrincipal | Promise<ApiKeyPrincipal> {
    // Length and prefix are checked before hashing (a long header costs nothing); the characters
    // and the checksum only before a storage look-up, so a cached key skips them and a typo never
    // reaches the database.
    if (!mayBeApiKey(key)) throw new AppError('invalid_api_key');
    const hash = hashApiKey(key);
    const entry = this.keys.cached(hash);
    if (entry !== undefined) return this.verdict(entry);
    if (!isWellFormedApiKey(key)) throw new AppError('invalid_api_key');
    return this.keys.load(hash).then((loaded) => this.verdict(loaded));
  }

  private verdict(entry: CachedKey | typeof ABSENT): ApiKeyPrincipal {
    const now = Date.now();
    if (entry === ABSENT) throw new AppError('invalid_api_key');
    if (entry.principal.testVerdict !== null && this.testKeysRefused) {
      throw new AppError('invalid_api_key', 'Test keys are refused in production.').attributeTo(entry.principal);
    }
    if (entry.revoked || (entry.expiresAt !== null && entry.expiresAt <= now) || (entry.graceEndsAt !== null && entry.graceEndsAt <= now)) {
      throw new AppError('invalid_api_key').attributeTo(entry.principal);
    }
    // Not a use yet: the origin, the scope and the rate limit may still refuse it (AccessGuard touches lastUsedAt).
    return entry.principal;
  }

  /** The entry of each hash, in order: one query however many (the cache refreshes keys in use in batches). */
  private async loadMany(hashes: readonly string[]): Promise<Array<CachedKey | typeof ABSENT>> {
    const rows = await this.prisma.apiKey.findMany({
      where: { OR: [{ hash: { in: [...hashes] } }, { previousHash: { in: [...hashes] } }] },
      select: {
        id: true,
        accountId: true,
        scopes: true,
        allowedOrigins: true,
        challengeWaitMs: true,
        testVerdict: true,
        expiresAt: true,
        hash: true,
        previousHash: true,
        previousHashExpiresAt: true,
        status: true,
      },
    });
    const byHash = new Map<string, (typeof rows)[number]>();
    for (const row of rows) {
      if (row.previousHash !== null) byHash.set(row.previousHash, row);
      byHash.set(row.hash, row);
    }
    return hashes.map((hash) => {
      const row = byHash.get(hash);
      if (row === undefined) return ABSENT;
      return {
        principal: {
          kind: 'apiKey',
          keyId: row.id,
          accountId: row.accountId,
          scopes: row.scopes,
          allowedOrigins: row.allowedOrigins,
          challengeWaitMs: row.challengeWaitMs,
          testVerdict: row.testVerdict as TestVerdict | null,
        },
        expiresAt: row.expiresAt?.getTime() ?? null,
        graceEndsAt: row.hash === hash ? null : (row.previousHashExpiresAt?.getTime() ?? 0),
        revoked: row.status === 'revoked',
      };
    });
  }
}

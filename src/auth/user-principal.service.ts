import { Injectable } from '@nestjs/common';
import { CacheInvalidation } from '../cache/invalidation.service';
import type { ReadThroughCache } from '../cache/read-through-cache';
import { PrismaService } from '../prisma/prisma.service';
import { hasSecondFactor, SECOND_FACTOR_SELECT } from '../credentials/second-factor';
import type { UserPrincipal } from '../common/principal';

export interface CachedUser {
  readonly principal: UserPrincipal;
  readonly tokenVersion: number;
  /** `jti`s of the user's tokens signed out and not yet expired. */
  readonly revokedTokens: ReadonlySet<string>;
}

/**
 * The user behind a token, cached briefly so a JWT request costs no database round trip once
 * warm. Role changes, removals, password changes, sign-outs, second factors added or removed and
 * the account's requireMfa invalidate the `user` topic, on every instance.
 */
@Injectable()
export class UserPrincipalService {
  private readonly users: ReadThroughCache<CachedUser | typeof ABSENT>;

  constructor(
    private readonly prisma: PrismaService,
    invalidation: CacheInvalidation,
  ) {
    this.users = invalidation.cache('user', {
      max: 50_000,
      load: (id) => this.loadMany([id]).then(([user]) => user),
      loadMany: (ids) => this.loadMany(ids),
    });
  }

  async find(userId: string): Promise<CachedUser | null> {
    const entry = await this.users.get(userId);
    return entry === ABSENT ? null : entry;
  }

  /** The user of each id, in order: one query however many (the cache refreshes users in use in batches). */
  private async loadMany(userIds: readonly string[]): Promise<Array<CachedUser | typeof ABSENT>> {
    const rows = await this.prisma.user.findMany({
      where: { id: { in: [...userIds] } },
      select: {
        id: true,
        email: true,
        accountId: true,
        role: true,
        tokenVersion: true,
        ...SECOND_FACTOR_SELECT,
        account: { select: { requireMfa: true } },
        revokedTokens: { where: { expiresAt: { gt: new Date() } }, select: { jti: true } },
      },
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return userIds.map((id) => {
      const row = byId.get(id);
      if (row === undefined) return ABSENT;
      return {
        principal: {
          kind: 'user',
          userId: row.id,
          email: row.email,
          accountId: row.accountId,
          role: row.role,
          ...(row.account.requireMfa && !hasSecondFactor(row) ? { mustEnrolMfa: true } : {}),
        },
        tokenVersion: row.tokenVersion,
        revokedTokens: row.revokedTokens.length === 0 ? NONE : new Set(row.revokedTokens.map((r) => r.jti)),
      };
    });
  }
}

const ABSENT = 0 as const;
const NONE: ReadonlySet<string> = new Set();

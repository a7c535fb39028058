import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { CacheInvalidation } from '../cache/invalidation.service';
import { PrismaService } from '../prisma/prisma.service';
import type { Role, UserPrincipal } from './principal';

export interface CachedUser {
  readonly principal: UserPrincipal;
  readonly tokenVersion: number;
}

/**
 * The user behind a token, cached briefly so a JWT request costs no database round trip once
 * warm. Role changes, removals and password changes invalidate the `user` topic, on every instance.
 */
@Injectable()
export class UserPrincipalService {
  private readonly cache = new LRUCache<string, CachedUser | typeof ABSENT>({ max: 50_000, ttl: 30_000 });

  constructor(
    private readonly prisma: PrismaService,
    invalidation: CacheInvalidation,
  ) {
    invalidation.on('user', (id) => this.cache.delete(id));
  }

  async find(userId: string): Promise<CachedUser | null> {
    let entry = this.cache.get(userId);
    if (entry === undefined) {
      const row = await this.prisma.user.findUnique({ where: { id: userId }, select: { id: true, email: true, accountId: true, role: true, tokenVersion: true } });
      entry =
        row === null
          ? ABSENT
          : { principal: { kind: 'user', userId: row.id, email: row.email, accountId: row.accountId, role: row.role as Role }, tokenVersion: row.tokenVersion };
      this.cache.set(userId, entry);
    }
    return entry === ABSENT ? null : entry;
  }
}

const ABSENT = 0 as const;

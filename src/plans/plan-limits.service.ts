import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { CacheInvalidation } from '../cache/invalidation.service';
import { PrismaService } from '../prisma/prisma.service';

/** What the request path needs of an account: its plan's rate limits and its nonce lifetime. */
export interface PlanLimits {
  readonly planId: string;
  readonly apiRequestsPerMinute: number;
  readonly managementRequestsPerMinute: number;
  readonly nonceTtlSeconds: number;
}

/**
 * The plan limits (and nonce lifetime) of each account, read on every request from a small cache.
 * A plan or settings change invalidates the `account` topic on every instance; the TTL bounds staleness should a message be lost.
 */
@Injectable()
export class PlanLimitsService {
  private readonly cache = new LRUCache<string, PlanLimits>({ max: 50_000, ttl: 30_000 });

  constructor(
    private readonly prisma: PrismaService,
    invalidation: CacheInvalidation,
  ) {
    invalidation.on('account', (id) => this.cache.delete(id));
  }

  async limitsFor(accountId: string): Promise<PlanLimits> {
    const cached = this.cache.get(accountId);
    if (cached !== undefined) return cached;
    const account = await this.prisma.account.findUniqueOrThrow({ where: { id: accountId }, include: { plan: true } });
    const limits: PlanLimits = {
      planId: account.plan.id,
      apiRequestsPerMinute: account.plan.apiRequestsPerMinute,
      managementRequestsPerMinute: account.plan.managementRequestsPerMinute,
      nonceTtlSeconds: account.nonceTtlSeconds,
    };
    this.cache.set(accountId, limits);
    return limits;
  }
}

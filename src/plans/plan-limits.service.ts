import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { CacheInvalidation } from '../cache/invalidation.service';
import { PrismaService } from '../prisma/prisma.service';

export interface PlanLimits {
  readonly planId: string;
  readonly apiRequestsPerMinute: number;
  readonly managementRequestsPerMinute: number;
}

/**
 * The plan limits of each account, read on every request from a small cache. A plan change
 * invalidates the `accountPlan` topic on every instance; the TTL bounds staleness should a message be lost.
 */
@Injectable()
export class PlanLimitsService {
  private readonly cache = new LRUCache<string, PlanLimits>({ max: 50_000, ttl: 30_000 });

  constructor(
    private readonly prisma: PrismaService,
    invalidation: CacheInvalidation,
  ) {
    invalidation.on('accountPlan', (id) => this.cache.delete(id));
  }

  async limitsFor(accountId: string): Promise<PlanLimits> {
    const cached = this.cache.get(accountId);
    if (cached !== undefined) return cached;
    const account = await this.prisma.account.findUniqueOrThrow({ where: { id: accountId }, include: { plan: true } });
    const limits: PlanLimits = {
      planId: account.plan.id,
      apiRequestsPerMinute: account.plan.apiRequestsPerMinute,
      managementRequestsPerMinute: account.plan.managementRequestsPerMinute,
    };
    this.cache.set(accountId, limits);
    return limits;
  }
}

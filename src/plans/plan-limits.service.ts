import { Injectable } from '@nestjs/common';
import { CacheInvalidation } from '../cache/invalidation.service';
import type { ReadThroughCache } from '../cache/read-through-cache';
import { PrismaService } from '../prisma/prisma.service';
import { PlanLimits, toPlanLimits } from './plan-limits';

export type { PlanLimits } from './plan-limits';

/**
 * The plan limits (and nonce lifetime) of each account, read on every request from a small cache.
 * A plan or settings change invalidates the `account` topic on every instance; the refresh bounds staleness should a message be lost.
 */
@Injectable()
export class PlanLimitsService {
  private readonly limits: ReadThroughCache<PlanLimits>;

  constructor(
    private readonly prisma: PrismaService,
    invalidation: CacheInvalidation,
  ) {
    this.limits = invalidation.cache('account', {
      max: 50_000,
      load: (accountId) =>
        this.loadMany([accountId]).then(([limits]) => limits ?? Promise.reject(new Error(`account ${accountId} not found`))),
      loadMany: (accountIds) => this.loadMany(accountIds),
    });
  }

  /** The cached limits, if any: lets the request path stay synchronous once warm. */
  cached(accountId: string): PlanLimits | undefined {
    return this.limits.cached(accountId);
  }

  async limitsFor(accountId: string): Promise<PlanLimits> {
    return this.limits.get(accountId);
  }

  /** The limits of each account, in order (undefined for an unknown id): one query however many, as the cache refreshes them in batches. */
  private async loadMany(accountIds: readonly string[]): Promise<Array<PlanLimits | undefined>> {
    const accounts = await this.prisma.account.findMany({ where: { id: { in: [...accountIds] } }, include: { plan: true } });
    const byId = new Map(accounts.map((account) => [account.id, account]));
    return accountIds.map((id) => {
      const account = byId.get(id);
      return account === undefined ? undefined : toPlanLimits(account);
    });
  }
}

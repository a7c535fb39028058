import { Injectable } from '@nestjs/common';
import { CacheInvalidation } from '../cache/invalidation.service';
import type { ReadThroughCache } from '../cache/read-through-cache';
import { PrismaService } from '../prisma/prisma.service';
import { PlanDto, toPlanDto } from './dto/plan.dto';

/** What the request path needs of an account: its plan's rate limits and its nonce lifetime (and, for `GET /auth/me`, names). */
export interface PlanLimits {
  readonly planId: string;
  readonly apiRequestsPerMinute: number;
  readonly managementRequestsPerMinute: number;
  readonly nonceTtlSeconds: number;
  readonly accountName: string;
  readonly plan: PlanDto;
}

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
      if (account === undefined) return undefined;
      return {
        planId: account.plan.id,
        apiRequestsPerMinute: account.plan.apiRequestsPerMinute,
        managementRequestsPerMinute: account.plan.managementRequestsPerMinute,
        nonceTtlSeconds: account.nonceTtlSeconds,
        accountName: account.name,
        plan: toPlanDto(account.plan),
      };
    });
  }
}

import type { Account, Plan } from '../generated/prisma/client';
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
 * An account's limits: the rate limits are its plan's, the nonce lifetime is the account's own
 * setting (docs/API.md, "Rate limits").
 */
export const toPlanLimits = (account: Account & { plan: Plan }): PlanLimits => ({
  planId: account.plan.id,
  apiRequestsPerMinute: account.plan.apiRequestsPerMinute,
  managementRequestsPerMinute: account.plan.managementRequestsPerMinute,
  nonceTtlSeconds: account.nonceTtlSeconds,
  accountName: account.name,
  plan: toPlanDto(account.plan),
});

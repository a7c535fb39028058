import { loadUnderFakeClock } from '../../test/utils/fake-clock';
import type * as UserPrincipalModule from '../auth/user-principal.service';
import type * as PlanLimitsModule from '../plans/plan-limits.service';
import type * as InvalidationModule from './invalidation.service';
import type { AppConfig } from '../config/app-config';
import { Metrics } from '../metrics/metrics';
import type { PrismaService } from '../prisma/prisma.service';

interface UserRow {
  id: string;
  email: string;
  accountId: string;
  role: string;
  tokenVersion: number;
}

const PLAN = {
  id: 'free',
  name: 'Free',
  apiRequestsPerMinute: 60,
  managementRequestsPerMinute: 30,
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

/**
 * The users and accounts behind JWT requests as their caches drive the look-ups, over tables kept
 * in memory: each `findMany` answers the `id in (…)` the services send PostgreSQL. Rows change
 * behind the caches' backs, as an instance whose invalidation message was lost would see them change.
 */
describe('users and accounts refreshed in batches', () => {
  const EMBEDDED_REFRESH_MS = 10 * 60_000;
  let users: UserRow[];
  let accounts: Array<{ id: string; name: string; nonceTtlSeconds: number; plan: typeof PLAN }>;
  let queries: Array<{ table: string; ids: string[] }>;
  let userService: UserPrincipalModule.UserPrincipalService;
  let planService: PlanLimitsModule.PlanLimitsService;

  beforeEach(() => {
    const { UserPrincipalService, PlanLimitsService, CacheInvalidation } = loadUnderFakeClock(Date.UTC(2026, 0, 1), () => ({
      ...(require('../auth/user-principal.service') as typeof UserPrincipalModule),
      ...(require('../plans/plan-limits.service') as typeof PlanLimitsModule),
      ...(require('./invalidation.service') as typeof InvalidationModule),
    }));
    users = [];
    accounts = [];
    queries = [];
    const prisma = {
      user: {
        findMany: ({ where }: { where: { id: { in: string[] } } }) => {
          queries.push({ table: 'user', ids: where.id.in });
          return Promise.resolve(
            users
              .filter((u) => where.id.in.includes(u.id))
              .map((u) => ({ ...u, revokedTokens: [], totpConfirmedAt: null, account: { requireMfa: false }, _count: { passkeys: 0 } })),
          );
        },
      },
      account: {
        findMany: ({ where }: { where: { id: { in: string[] } } }) => {
          queries.push({ table: 'account', ids: where.id.in });
          return Promise.resolve(accounts.filter((a) => where.id.in.includes(a.id)).map((a) => ({ ...a, plan: { ...a.plan } })));
        },
      },
    } as unknown as PrismaService;
    const config = { redis: undefined, databaseUrl: undefined, redisKeyPrefix: 'test:' } as unknown as AppConfig;
    const invalidation = new CacheInvalidation(config, new Metrics({ metrics: {} } as AppConfig));
    userService = new UserPrincipalService(prisma, invalidation);
    planService = new PlanLimitsService(prisma, invalidation);
  });

  afterEach(() => jest.useRealTimers());

  const roleOf = async (id: string) => (await userService.find(id))?.principal.role ?? 'absent';

  it('refreshes every user in use with one query, and each user gets its own row', async () => {
    users.push(
      { id: 'u-1', email: 'one@example.com', accountId: 'a-1', role: 'OWNER', tokenVersion: 0 },
      { id: 'u-2', email: 'two@example.com', accountId: 'a-1', role: 'ANALYST', tokenVersion: 0 },
      { id: 'u-3', email: 'three@example.com', accountId: 'a-1', role: 'DEVELOPER', tokenVersion: 0 },
    );
    expect(await Promise.all(['u-1', 'u-2', 'u-3', 'u-new'].map(roleOf))).toEqual(['OWNER', 'ANALYST', 'DEVELOPER', 'absent']);
    expect(queries).toHaveLength(4); // the misses: one query each

    users[1].role = 'ADMIN';
    users[2].tokenVersion = 1;
    users.splice(0, 1); // u-1 removed
    users.push({ id: 'u-new', email: 'new@example.com', accountId: 'a-1', role: 'ANALYST', tokenVersion: 0 });
    jest.advanceTimersByTime(EMBEDDED_REFRESH_MS);
    expect(await Promise.all(['u-1', 'u-2', 'u-3', 'u-new'].map(roleOf))).toEqual(['OWNER', 'ANALYST', 'DEVELOPER', 'absent']); // due: answered from the cache
    await jest.advanceTimersByTimeAsync(1_000);

    expect(queries.slice(4)).toEqual([{ table: 'user', ids: ['u-1', 'u-2', 'u-3', 'u-new'] }]);
    expect(await Promise.all(['u-1', 'u-2', 'u-3', 'u-new'].map(roleOf))).toEqual(['absent', 'ADMIN', 'DEVELOPER', 'ANALYST']);
    expect((await userService.find('u-3'))?.tokenVersion).toBe(1);
  });

  it('refreshes the accounts in use with one query, keeping an account the batch no longer finds', async () => {
    accounts.push(
      { id: 'a-1', name: 'One', nonceTtlSeconds: 300, plan: { ...PLAN } },
      { id: 'a-2', name: 'Two', nonceTtlSeconds: 300, plan: { ...PLAN } },
    );
    expect((await planService.limitsFor('a-1')).apiRequestsPerMinute).toBe(60);
    expect((await planService.limitsFor('a-2')).nonceTtlSeconds).toBe(300);
    await expect(planService.limitsFor('a-unknown')).rejects.toThrow('account a-unknown not found');

    accounts[0].plan = { ...PLAN, id: 'pro', name: 'Pro', apiRequestsPerMinute: 600 };
    accounts.splice(1, 1);
    jest.advanceTimersByTime(EMBEDDED_REFRESH_MS);
    expect(planService.cached('a-1')?.apiRequestsPerMinute).toBe(60); // due: answered from the cache
    expect(planService.cached('a-2')?.nonceTtlSeconds).toBe(300);
    await jest.advanceTimersByTimeAsync(1_000);

    expect(queries.slice(3)).toEqual([{ table: 'account', ids: ['a-1', 'a-2'] }]);
    expect(planService.cached('a-1')).toMatchObject({ planId: 'pro', apiRequestsPerMinute: 600, accountName: 'One' });
    expect(planService.cached('a-2')?.nonceTtlSeconds).toBe(300); // its refresh failed alone: kept until it expires
  });
});

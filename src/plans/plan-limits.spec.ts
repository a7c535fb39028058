import { toPlanLimits } from './plan-limits';

const plan = {
  id: 'pro',
  name: 'Pro',
  apiRequestsPerMinute: 600,
  managementRequestsPerMinute: 300,
  challengeWaitMs: 1000,
};
const account = {
  id: '0b8f4a6e-2f1c-4c1e-9a43-5d2b7e9c1f00',
  name: 'Acme',
  planId: 'pro',
  nonceTtlSeconds: 120,
  requireMfa: false,
  createdAt: new Date(),
  updatedAt: new Date(),
  plan,
};

describe('toPlanLimits', () => {
  const limits = toPlanLimits(account);

  it('takes API-key and dashboard allowances from the plan, each to its own field', () => {
    expect(limits.apiRequestsPerMinute).toBe(600);
    expect(limits.managementRequestsPerMinute).toBe(300);
    expect(limits.planId).toBe('pro');
  });

  it('takes the nonce lifetime from the account, not the plan', () => {
    expect(limits.nonceTtlSeconds).toBe(120);
    expect(limits.accountName).toBe('Acme');
  });

  it('describes the plan as GET /plans does, with its default challenge difficulty', () => {
    expect(limits.plan).toEqual(plan);
  });

  it('follows a plan change: another plan, other limits', () => {
    const free = { ...plan, id: 'free', name: 'Free', apiRequestsPerMinute: 60, managementRequestsPerMinute: 120 };
    expect(toPlanLimits({ ...account, planId: 'free', plan: free })).toMatchObject({
      planId: 'free',
      apiRequestsPerMinute: 60,
      managementRequestsPerMinute: 120,
    });
  });
});

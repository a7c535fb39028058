import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { authKeys } from './auth';
import { api } from './api';
import { unwrap } from './errors';
import type { MutationReactions } from './mutation-reactions';
import type { components } from './schema';
import { session } from './session';

export type Account = components['schemas']['AccountDto'];
export type Plan = components['schemas']['PlanDto'];
type PlanId = components['schemas']['ChangePlanDto']['plan'];

export const accountKeys = {
  all: ['account'] as const,
  detail: () => [...accountKeys.all, 'detail'] as const,
  plans: () => [...accountKeys.all, 'plans'] as const,
};

export const accountQuery = () =>
  queryOptions({ queryKey: accountKeys.detail(), queryFn: async () => unwrap(await api.GET('/api/v1/account')) });

/** Every plan, smallest first; they change only with a deployment. */
export const plansQuery = () =>
  queryOptions({ queryKey: accountKeys.plans(), queryFn: async () => unwrap(await api.GET('/api/v1/plans')).data, staleTime: 300_000 });

export function useAccount() {
  return useQuery(accountQuery());
}

export function usePlans() {
  return useQuery(plansQuery());
}

/** The account the API answered is the new one; the frame's header and every page's plan limits come from GET /auth/me. */
function useAccountChanged() {
  const queryClient = useQueryClient();
  return (account: Account) => {
    queryClient.setQueryData(accountQuery().queryKey, account);
    void queryClient.invalidateQueries({ queryKey: authKeys.me() });
  };
}

export function useUpdateAccount({ onSuccess }: MutationReactions<Account> = {}) {
  const changed = useAccountChanged();
  return useMutation({
    mutationFn: async (body: { name?: string; nonceTtlSeconds?: number }) => unwrap(await api.PATCH('/api/v1/account', { body })),
    onSuccess: (account) => {
      changed(account);
      onSuccess?.(account);
    },
  });
}

export function useChangePlan(plan: string, { onSuccess }: MutationReactions<Account> = {}) {
  const changed = useAccountChanged();
  return useMutation({
    mutationFn: async () => unwrap(await api.PUT('/api/v1/account/plan', { body: { plan: plan as PlanId } })),
    onSuccess: (account) => {
      changed(account);
      onSuccess?.(account);
    },
  });
}

/** `confirm` is the account's name, typed; the session dies with the account, so every tab signs out (the sign-in page says so). */
export function useDeleteAccount(confirm: string) {
  return useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/account', { body: { confirm } })),
    onSuccess: () => session.signOut(),
  });
}

/** Whether every member must have a second factor (OWNER only): PATCH /account {requireMfa}. */
export function useRequireMfa({ onSuccess }: MutationReactions<Account> = {}) {
  const changed = useAccountChanged();
  return useMutation({
    mutationFn: async (requireMfa: boolean) => unwrap(await api.PATCH('/api/v1/account', { body: { requireMfa } })),
    onSuccess: (account) => {
      changed(account);
      onSuccess?.(account);
    },
  });
}

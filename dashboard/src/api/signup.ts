import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import { api } from './api';
import { useStartFreshSession } from './auth';
import { unwrap } from './errors';
import type { MutationReactions } from './mutation-reactions';
import type { components } from './schema';

type TokenAnswer = components['schemas']['TokenResponseDto'];

/** Where ALTCHA's widget fetches the sign-up challenge. */
export const SIGNUP_CHALLENGE_URL = '/api/v1/auth/signup/challenge';

export const serviceConfigKeys = {
  all: ['service-config'] as const,
};

/** What this deployment offers before sign-in (sign-up, e-mail, version): one public, cacheable answer. */
export const serviceConfigQuery = () =>
  queryOptions({
    queryKey: serviceConfigKeys.all,
    queryFn: async () => unwrap(await api.GET('/api/v1/config')),
    staleTime: Infinity,
  });

/** Whether this deployment takes sign-ups (SIGNUP=open). */
export function useSignupOpen() {
  return useQuery({ ...serviceConfigQuery(), select: (config) => config.signupOpen });
}

export interface SignupBody {
  email: string;
  password: string;
  accountName: string;
  altcha: string;
}

export function useSignup({ onSuccess, onError }: MutationReactions<unknown> = {}) {
  return useMutation({
    mutationFn: async (body: SignupBody) => unwrap(await api.POST('/api/v1/auth/signup', { body })),
    onSuccess,
    onError,
  });
}

/** Confirms a sign-up's address with the e-mailed token, and signs the new owner in. */
export function useConfirmSignup({ onSuccess }: MutationReactions<TokenAnswer> = {}) {
  const start = useStartFreshSession();
  return useMutation({
    mutationFn: async (token: string) => unwrap(await api.POST('/api/v1/auth/signup/confirm', { body: { token } })),
    onSuccess: (answer) => {
      start(answer);
      onSuccess?.(answer);
    },
  });
}

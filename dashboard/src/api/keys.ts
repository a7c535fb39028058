import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './api';
import { unwrap } from './errors';
import type { MutationReactions } from './mutation-reactions';
import type { components } from './schema';

export type ApiKey = components['schemas']['ApiKeyDto'];
export type ApiKeyWithSecret = components['schemas']['ApiKeyWithSecretDto'];
export type Scope = ApiKey['scopes'][number];
/** A key's challenge difficulty: a visitor's median wait, in ms. */
export type WaitMs = NonNullable<ApiKey['challengeWaitMs']>;

/** A difficulty as people read it: "Visitor waits ~0.25 s". */
export const waitLabel = (ms: number): string => `Visitor waits ~${ms / 1000} s`;

/** What a create or an edit sends; absent fields keep their value on an edit. */
export interface KeyFields {
  name: string;
  scopes: Scope[];
  allowedOrigins: string[];
  /** null: back to the plan's difficulty. */
  challengeWaitMs?: WaitMs | null;
  expiresAt?: string;
}

export const keyKeys = {
  all: ['api-keys'] as const,
  list: () => [...keyKeys.all, 'list'] as const,
};

/** The account's keys, newest first, revoked ones included (never a secret). */
export const keysQuery = () =>
  queryOptions({ queryKey: keyKeys.list(), queryFn: async () => unwrap(await api.GET('/api/v1/api-keys')).data });

/** `enabled: false` for a role that may not list keys (the API would answer 403). */
export function useKeys({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...keysQuery(), enabled });
}

function useKeysChanged() {
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: keyKeys.all });
}

/** Creates a key (the answer carries its secret, once) or, given `id`, edits that one. */
export function useSaveKey(id: string | undefined, { onSuccess }: MutationReactions<ApiKey | ApiKeyWithSecret> = {}) {
  const changed = useKeysChanged();
  return useMutation({
    mutationFn: async (fields: KeyFields): Promise<ApiKey | ApiKeyWithSecret> =>
      id
        ? unwrap(await api.PATCH('/api/v1/api-keys/{id}', { params: { path: { id } }, body: fields }))
        : unwrap(await api.POST('/api/v1/api-keys', { body: fields })),
    onSuccess: (key) => {
      changed();
      onSuccess?.(key);
    },
  });
}

/** A new secret; the old one keeps working for `gracePeriodSeconds`. */
export function useRotateKey(id: string, gracePeriodSeconds: number, { onSuccess }: MutationReactions<ApiKeyWithSecret> = {}) {
  const changed = useKeysChanged();
  return useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/api-keys/{id}/rotate', { params: { path: { id } }, body: { gracePeriodSeconds } })),
    onSuccess: (key) => {
      changed();
      onSuccess?.(key);
    },
  });
}

export function useRevokeKey(id: string, { onSuccess }: MutationReactions<ApiKey> = {}) {
  const changed = useKeysChanged();
  return useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: (key) => {
      changed();
      onSuccess?.(key);
    },
  });
}

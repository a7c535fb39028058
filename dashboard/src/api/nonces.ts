import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createApiClient } from './client';
import { unwrap } from './errors';
import { keyKeys } from './keys';
import type { components } from './schema';

export type NonceVerdict = components['schemas']['ValidNonceVerdictDto'] | components['schemas']['InvalidNonceVerdictDto'];

/** Calls made with an API key, as a customer's server makes them: the session's token does not go with them. */
const withKey = createApiClient();

/**
 * `POST /api/v1/nonces/verify` with a verify key, for the keys page's "Try it". The key is only
 * passed through: nothing here keeps it. Afterwards the keys are asked again: the verify key and
 * the widget key before it have just been used ("Last used").
 */
export function useVerifyNonce() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ verifyKey, nonce }: { verifyKey: string; nonce: string }): Promise<NonceVerdict> =>
      unwrap(await withKey.POST('/api/v1/nonces/verify', { headers: { 'X-Api-Key': verifyKey }, body: { nonce } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keyKeys.all }),
  });
}

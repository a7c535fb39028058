import { useMutation } from '@tanstack/react-query';
import { createApiClient } from './client';
import { unwrap } from './errors';
import type { components } from './schema';

export type NonceVerdict = components['schemas']['ValidNonceVerdictDto'] | components['schemas']['InvalidNonceVerdictDto'];

/** Calls made with an API key, as a customer's server makes them: the session's token does not go with them. */
const withKey = createApiClient();

/**
 * `POST /api/v1/nonces/verify` with a verify key, for the keys page's "Try it". The key is only
 * passed through: nothing here keeps it.
 */
export function useVerifyNonce() {
  return useMutation({
    mutationFn: async ({ verifyKey, nonce }: { verifyKey: string; nonce: string }): Promise<NonceVerdict> =>
      unwrap(await withKey.POST('/api/v1/nonces/verify', { headers: { 'X-Api-Key': verifyKey }, body: { nonce } })),
  });
}

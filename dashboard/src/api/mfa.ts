import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { authKeys } from './auth';
import { api } from './api';
import { unwrap } from './errors';
import type { Passkey, SignInSession } from './sign-in';
import type { MutationReactions } from './mutation-reactions';
import { secondFactorDemand, session } from './session';

type RegistrationOptions = Parameters<typeof import('@simplewebauthn/browser').startRegistration>[0]['optionsJSON'];

/** The signed-in person's own sign-in protection: second factors, passkeys and sessions. */
export const securityKeys = {
  all: [...authKeys.all, 'security'] as const,
  mfa: () => [...securityKeys.all, 'mfa'] as const,
  passkeys: () => [...securityKeys.all, 'passkeys'] as const,
  sessions: () => [...securityKeys.all, 'sessions'] as const,
};

export const mfaQuery = () =>
  queryOptions({ queryKey: securityKeys.mfa(), queryFn: async () => unwrap(await api.GET('/api/v1/auth/mfa')) });

export const passkeysQuery = () =>
  queryOptions({
    queryKey: securityKeys.passkeys(),
    queryFn: async () => unwrap(await api.GET('/api/v1/auth/passkeys')).data,
  });

export const sessionsQuery = () =>
  queryOptions({
    queryKey: securityKeys.sessions(),
    queryFn: async () => unwrap(await api.GET('/api/v1/auth/sessions')).data,
  });

export function useMfaStatus() {
  return useQuery(mfaQuery());
}

export function usePasskeys() {
  return useQuery(passkeysQuery());
}

export function useSessions() {
  return useQuery(sessionsQuery());
}

/** What a change to one's second factors touches: the status, the passkeys, and whether the API still demands one. */
function useSecurityChanged() {
  const queryClient = useQueryClient();
  return async () => {
    await queryClient.invalidateQueries({ queryKey: securityKeys.all });
    const status = queryClient.getQueryData(mfaQuery().queryKey);
    if (status && (status.totp || status.passkeys > 0)) secondFactorDemand.set(false);
  };
}

/** A pending TOTP secret (replacing any pending one): its otpauth URL for the QR code, and the secret to type. */
export function useStartTotp() {
  return useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/auth/mfa/totp')),
  });
}

/** Turns TOTP on with a code from the app; the answer holds the ten recovery codes, shown once. */
export function useConfirmTotp({ onSuccess }: MutationReactions<{ recoveryCodes: string[] }> = {}) {
  const changed = useSecurityChanged();
  return useMutation({
    mutationFn: async (code: string) => unwrap(await api.POST('/api/v1/auth/mfa/totp/confirm', { body: { code } })),
    onSuccess: async (answer) => {
      onSuccess?.(answer);
      await changed();
    },
  });
}

export function useRemoveTotp({ onSuccess }: MutationReactions<unknown> = {}) {
  const changed = useSecurityChanged();
  return useMutation({
    mutationFn: async (password: string) => unwrap(await api.DELETE('/api/v1/auth/mfa/totp', { body: { password } })),
    onSuccess: async (answer) => {
      onSuccess?.(answer);
      await changed();
    },
  });
}

/** Ten new recovery codes, replacing every old one. */
export function useRegenerateRecoveryCodes({ onSuccess }: MutationReactions<{ recoveryCodes: string[] }> = {}) {
  const changed = useSecurityChanged();
  return useMutation({
    mutationFn: async (password: string) => unwrap(await api.POST('/api/v1/auth/mfa/recovery-codes', { body: { password } })),
    onSuccess: async (answer) => {
      onSuccess?.(answer);
      await changed();
    },
  });
}

/** Registers this device's (or a security key's) passkey: the WebAuthn library is loaded only now. */
export function useAddPasskey({ onSuccess }: MutationReactions<Passkey> = {}) {
  const changed = useSecurityChanged();
  return useMutation({
    mutationFn: async (name: string) => {
      const options = unwrap(await api.POST('/api/v1/auth/passkeys/registration-options'));
      const { startRegistration } = await import('@simplewebauthn/browser');
      const response = await startRegistration({ optionsJSON: options as unknown as RegistrationOptions });
      return unwrap(await api.POST('/api/v1/auth/passkeys', { body: { name, response: response as unknown as Record<string, unknown> } }));
    },
    onSuccess: async (passkey) => {
      onSuccess?.(passkey);
      await changed();
    },
  });
}

export function useRenamePasskey(id: string, { onSuccess }: MutationReactions<Passkey> = {}) {
  const changed = useSecurityChanged();
  return useMutation({
    mutationFn: async (name: string) => unwrap(await api.PATCH('/api/v1/auth/passkeys/{id}', { params: { path: { id } }, body: { name } })),
    onSuccess: async (passkey) => {
      onSuccess?.(passkey);
      await changed();
    },
  });
}

export function useRemovePasskey(id: string, { onSuccess }: MutationReactions<unknown> = {}) {
  const changed = useSecurityChanged();
  return useMutation({
    mutationFn: async (password: string) =>
      unwrap(await api.DELETE('/api/v1/auth/passkeys/{id}', { params: { path: { id } }, body: { password } })),
    onSuccess: async (answer) => {
      onSuccess?.(answer);
      await changed();
    },
  });
}

/** Ends one of the person's sessions: its tokens are refused from the next request on. */
export function useEndSession({ id, current }: Pick<SignInSession, 'id' | 'current'>, { onSuccess }: MutationReactions<unknown> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/auth/sessions/{id}', { params: { path: { id } } })),
    onSuccess: (answer) => {
      // This browser's own session: every tab of it is signed out.
      if (current) session.signOut();
      else void queryClient.invalidateQueries({ queryKey: securityKeys.sessions() });
      onSuccess?.(answer);
    },
  });
}

import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Me } from '../roles';
import { api } from './api';
import { unwrap } from './errors';
import type { MutationReactions } from './mutation-reactions';
import type { components } from './schema';
import { LoginAnswer, needsSecondStep, TokenAnswer as SessionAnswer } from './sign-in';
import { session } from './session';

type TokenAnswer = components['schemas']['TokenResponseDto'];

export const authKeys = {
  all: ['auth'] as const,
  me: () => [...authKeys.all, 'me'] as const,
  invitation: (token: string) => [...authKeys.all, 'invitation', token] as const,
};

/** Whom an invitation joins, as whom and invited by whom, before its password is chosen. */
export const invitationPreviewQuery = (token: string) =>
  queryOptions({
    queryKey: authKeys.invitation(token),
    queryFn: async () => unwrap(await api.POST('/api/v1/auth/invitations/preview', { body: { token } })),
    retry: false,
    staleTime: Infinity,
  });

/**
 * The preview of an invitation not yet accepted: `pending` false once the person joins, as the
 * used invitation would answer 401 to a refetch (the fresh session clears the cache) and that 401
 * must not read as the new session's end.
 */
export function useInvitationPreview(token: string | null, pending: boolean) {
  return useQuery({ ...invitationPreviewQuery(token ?? ''), enabled: token !== null && pending });
}

/** The signed-in person, their account, plan and the bounds of its settings (GET /auth/me), shared by every page. */
export const meQuery = () =>
  queryOptions({ queryKey: authKeys.me(), queryFn: async (): Promise<Me> => unwrap(await api.GET('/api/v1/auth/me')) });

export function useMe() {
  return useQuery(meQuery());
}

/**
 * Signs in with email and password: the session starts before the page's onSuccess runs, unless the
 * answer asks for a second step (`mfaRequired`), which the page then shows.
 */
export function useLogin({ onSuccess }: MutationReactions<LoginAnswer> = {}) {
  return useMutation({
    mutationFn: async (body: { email: string; password: string }) => unwrap(await api.POST('/api/v1/auth/login', { body })),
    onSuccess: (answer) => {
      if (!needsSecondStep(answer)) session.start(answer.token, answer.expiresIn);
      onSuccess?.(answer);
    },
  });
}

/** The second step of a sign-in: a 6-digit code from the authenticator app, or a recovery code. */
export function useSecondStep({ onSuccess }: MutationReactions<SessionAnswer> = {}) {
  return useMutation({
    mutationFn: async (body: { mfaToken: string; code: string }) => unwrap(await api.POST('/api/v1/auth/login/mfa', { body })),
    onSuccess: (answer) => {
      session.start(answer.token, answer.expiresIn);
      onSuccess?.(answer);
    },
  });
}

/**
 * Signs in with a passkey: the second step of a sign-in (with its `mfaToken`), or on its own without
 * a password (a passkey the authenticator finds by itself). The WebAuthn library is loaded only now.
 */
export function usePasskeySignIn({ onSuccess }: MutationReactions<SessionAnswer> = {}) {
  return useMutation({
    mutationFn: async (mfaToken?: string) => {
      const body = mfaToken === undefined ? {} : { mfaToken };
      const options = unwrap(await api.POST('/api/v1/auth/passkeys/authentication-options', { body }));
      const { startAuthentication } = await import('@simplewebauthn/browser');
      const response = await startAuthentication({ optionsJSON: options });
      return unwrap(
        await api.POST('/api/v1/auth/login/passkey', { body: { ...body, response: response as unknown as Record<string, unknown> } }),
      );
    },
    onSuccess: (answer) => {
      session.start(answer.token, answer.expiresIn);
      onSuccess?.(answer);
    },
  });
}

/** Signs this browser out: the session dies on the server, and whatever the server answered, every tab forgets it. */
export function useSignOut() {
  return useMutation({
    mutationFn: () => api.POST('/api/v1/auth/logout'),
    onSettled: () => session.signOut(),
  });
}

/** Every older token stopped working, this tab's too: it goes on with the new one (other tabs, through the new session's cookie). */
export function useChangePassword() {
  return useMutation({
    mutationFn: async (body: { currentPassword: string; newPassword: string }) => unwrap(await api.PUT('/api/v1/auth/password', { body })),
    onSuccess: ({ token, expiresIn }) => session.start(token, expiresIn),
  });
}

/** Starts the session a one-time link's answer carries; nothing of a previous person's stays cached. */
export function useStartFreshSession() {
  const queryClient = useQueryClient();
  return ({ token, expiresIn }: TokenAnswer) => {
    queryClient.clear();
    session.start(token, expiresIn);
  };
}

/** Accepts an invitation with the person's new password, and signs them in. */
export function useAcceptInvitation(token: string | null, { onSuccess }: MutationReactions<TokenAnswer> = {}) {
  const start = useStartFreshSession();
  return useMutation({
    mutationFn: async (password: string) =>
      unwrap(await api.POST('/api/v1/auth/invitations/accept', { body: { token: token!, password } })),
    onSuccess: (answer) => {
      start(answer);
      onSuccess?.(answer);
    },
  });
}

/**
 * Sets a new password with a reset link's token, and signs the person in; one with a second factor
 * gets the second step first (the page shows it).
 */
export function useAcceptPasswordReset(token: string | null, { onSuccess }: MutationReactions<LoginAnswer> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (newPassword: string): Promise<LoginAnswer> =>
      unwrap(await api.POST('/api/v1/auth/password-reset/accept', { body: { token: token!, newPassword } })),
    onSuccess: (answer) => {
      queryClient.clear();
      if (!needsSecondStep(answer)) session.start(answer.token, answer.expiresIn);
      onSuccess?.(answer);
    },
  });
}

/** Asks for a reset link by e-mail (404 where this Gatehouse sends none). */
export function useRequestPasswordReset() {
  return useMutation({
    mutationFn: async (email: string) => unwrap(await api.POST('/api/v1/auth/password-reset/request', { body: { email } })),
  });
}

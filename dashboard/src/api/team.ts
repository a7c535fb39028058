import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Role } from '../roles';
import { authKeys, meQuery } from './auth';
import { api } from './api';
import { unwrap } from './errors';
import type { MutationReactions } from './mutation-reactions';
import type { components } from './schema';

export type Member = components['schemas']['MemberDto'];
export type Invitation = components['schemas']['PendingInvitationDto'];
type IssuedInvitation = components['schemas']['InvitationDto'];
type IssuedReset = components['schemas']['PasswordResetIssuedDto'];

export const teamKeys = {
  all: ['team'] as const,
  members: () => [...teamKeys.all, 'members'] as const,
  invitations: () => [...teamKeys.all, 'invitations'] as const,
};

/** Everyone who signs in to the account, oldest first. */
export const membersQuery = () =>
  queryOptions({ queryKey: teamKeys.members(), queryFn: async () => unwrap(await api.GET('/api/v1/team/members')).data });

/** Pending invitations, newest first (never a token). */
export const invitationsQuery = () =>
  queryOptions({ queryKey: teamKeys.invitations(), queryFn: async () => unwrap(await api.GET('/api/v1/team/invitations')).data });

export function useMembers() {
  return useQuery(membersQuery());
}

/** `enabled: false` for a role that may not see invitations (the API would answer 403). */
export function useInvitations({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...invitationsQuery(), enabled });
}

function useTeamChanged() {
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: teamKeys.all });
}

/** The answer carries the one-time token, unless Gatehouse e-mailed it (`emailed`). */
export function useInvite({ onSuccess }: MutationReactions<IssuedInvitation> = {}) {
  const changed = useTeamChanged();
  return useMutation({
    mutationFn: async (body: { email: string; role: Role }) => unwrap(await api.POST('/api/v1/team/invitations', { body })),
    onSuccess: (invitation) => {
      changed();
      onSuccess?.(invitation);
    },
  });
}

export function useRevokeInvitation(id: string, { onSuccess }: MutationReactions<unknown> = {}) {
  const changed = useTeamChanged();
  return useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/team/invitations/{id}', { params: { path: { id } } })),
    onSuccess: (answer) => {
      changed();
      onSuccess?.(answer);
    },
  });
}

export function useChangeRole(userId: string, { onSuccess }: MutationReactions<Member> = {}) {
  const changed = useTeamChanged();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (role: Role) =>
      unwrap(await api.PATCH('/api/v1/team/members/{userId}', { params: { path: { userId } }, body: { role } })),
    onSuccess: (member) => {
      changed();
      // One's own new role changes what the whole dashboard offers.
      if (queryClient.getQueryData(meQuery().queryKey)?.id === userId) void queryClient.invalidateQueries({ queryKey: authKeys.me() });
      onSuccess?.(member);
    },
  });
}

export function useRemoveMember(userId: string, { onSuccess }: MutationReactions<unknown> = {}) {
  const changed = useTeamChanged();
  return useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/team/members/{userId}', { params: { path: { userId } } })),
    onSuccess: (answer) => {
      changed();
      onSuccess?.(answer);
    },
  });
}

/** A one-time reset link for a member: its token is in the answer, unless Gatehouse e-mailed it (`emailed`). */
export function useIssuePasswordReset(userId: string, { onSuccess }: MutationReactions<IssuedReset> = {}) {
  return useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/team/members/{userId}/password-reset', { params: { path: { userId } } })),
    onSuccess,
  });
}

/** Ends every session of a member: each of their tokens is refused from the next request on. */
export function useEndMemberSessions(userId: string, { onSuccess }: MutationReactions<unknown> = {}) {
  return useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/team/members/{userId}/sessions', { params: { path: { userId } } })),
    onSuccess,
  });
}

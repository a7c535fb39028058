import { ROLES, Role } from '../common/principal';
import { AppError } from '../common/errors/app-error';

/**
 * Who may do what to whom in a team (docs/API.md, "Roles and scopes"). Pure: the service loads the
 * rows, these decide.
 */

/** Only an OWNER invites, changes, removes, resets the password of or revokes an invitation of anything OWNER. */
export const mayActOnOwner = (actor: Role, ...roles: ReadonlyArray<Role | null>): boolean => actor === 'OWNER' || !roles.includes('OWNER');

/** Whether a member of role `inviter` may (still) stand behind an invitation to `role`: an OWNER any, an ADMIN any but OWNER. */
export const mayInvite = (inviter: Role, role: Role): boolean => inviter === 'OWNER' || (inviter === 'ADMIN' && role !== 'OWNER');

/** The invitation roles a member keeps standing behind in their new role (null: removed): the others are revoked with the change. */
export const invitationRolesKept = (newRole: Role | null): Role[] =>
  newRole === null ? [] : ROLES.filter((role) => mayInvite(newRole, role));

/** Whether changing a member from `from` to `to` (null: removing them) takes an OWNER away, so the account must have another. */
export const takesAnOwnerAway = (from: Role, to: Role | null): boolean => from === 'OWNER' && to !== 'OWNER';

/** Refuses a change that would leave the account with `owners` OWNERs before it and none after. */
export function assertNotLastOwner(owners: number): void {
  if (owners <= 1) throw new AppError('conflict', 'The last OWNER cannot be demoted or removed; make another member OWNER first.');
}

/** An invitation still usable at `now`: not accepted, not revoked, not expired. */
export const isPending = (
  invitation: { readonly acceptedAt: Date | null; readonly revokedAt: Date | null; readonly expiresAt: Date },
  now: Date,
): boolean => invitation.acceptedAt === null && invitation.revokedAt === null && invitation.expiresAt > now;

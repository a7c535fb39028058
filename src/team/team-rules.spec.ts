import { ROLES, Role } from '../common/principal';
import { AppError } from '../common/errors/app-error';
import { assertNotLastOwner, invitationRolesKept, isPending, mayActOnOwner, mayInvite, takesAnOwnerAway } from './team-rules';

const NOT_OWNERS = ROLES.filter((r) => r !== 'OWNER');

describe('mayActOnOwner', () => {
  it('lets an OWNER act on any role, OWNER included', () => {
    for (const role of ROLES) expect(mayActOnOwner('OWNER', role)).toBe(true);
    expect(mayActOnOwner('OWNER', 'OWNER', 'ADMIN')).toBe(true);
  });

  it('refuses anyone else anything that is OWNER, whether the member is one or would become one', () => {
    for (const actor of NOT_OWNERS) {
      expect(mayActOnOwner(actor, 'OWNER')).toBe(false); // remove, reset, revoke an OWNER invitation
      expect(mayActOnOwner(actor, 'OWNER', 'ADMIN')).toBe(false); // demote an OWNER
      expect(mayActOnOwner(actor, 'DEVELOPER', 'OWNER')).toBe(false); // promote to OWNER
    }
  });

  it('lets an ADMIN change roles below OWNER, and remove (no new role) a non-OWNER', () => {
    expect(mayActOnOwner('ADMIN', 'DEVELOPER', 'ADMIN')).toBe(true);
    expect(mayActOnOwner('ADMIN', 'ADMIN', 'ANALYST')).toBe(true);
    expect(mayActOnOwner('ADMIN', 'ANALYST', null)).toBe(true);
  });
});

describe('mayInvite', () => {
  it('lets an OWNER stand behind an invitation to every role', () => {
    for (const role of ROLES) expect(mayInvite('OWNER', role)).toBe(true);
  });

  it('lets an ADMIN invite every role but OWNER', () => {
    expect(ROLES.filter((role) => mayInvite('ADMIN', role))).toEqual(['ADMIN', 'DEVELOPER', 'ANALYST']);
  });

  it('lets no DEVELOPER or ANALYST invite anyone', () => {
    for (const inviter of ['DEVELOPER', 'ANALYST'] as const) for (const role of ROLES) expect(mayInvite(inviter, role)).toBe(false);
  });
});

describe('invitationRolesKept', () => {
  it('keeps what the new role may still invite; a removed member keeps nothing', () => {
    expect(invitationRolesKept('OWNER')).toEqual([...ROLES]);
    expect(invitationRolesKept('ADMIN')).toEqual(['ADMIN', 'DEVELOPER', 'ANALYST']);
    expect(invitationRolesKept('DEVELOPER')).toEqual([]);
    expect(invitationRolesKept('ANALYST')).toEqual([]);
    expect(invitationRolesKept(null)).toEqual([]);
  });
});

describe('takesAnOwnerAway', () => {
  it('is true when an OWNER is demoted or removed', () => {
    for (const to of [...NOT_OWNERS, null]) expect(takesAnOwnerAway('OWNER', to)).toBe(true);
  });

  it('is false when an OWNER stays one, or the member was not one', () => {
    expect(takesAnOwnerAway('OWNER', 'OWNER')).toBe(false);
    for (const from of NOT_OWNERS) for (const to of [...ROLES, null] as Array<Role | null>) expect(takesAnOwnerAway(from, to)).toBe(false);
  });
});

describe('assertNotLastOwner', () => {
  it('refuses with 409 conflict when the account has one OWNER (or, by a race, none)', () => {
    for (const owners of [1, 0]) {
      let thrown: unknown;
      try {
        assertNotLastOwner(owners);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect((thrown as AppError).code).toBe('conflict');
      expect((thrown as AppError).status).toBe(409);
    }
  });

  it('allows the change when another OWNER remains', () => {
    expect(() => assertNotLastOwner(2)).not.toThrow();
  });
});

describe('isPending', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  const open = { acceptedAt: null, revokedAt: null, expiresAt: new Date(now.getTime() + 1) };

  it('is true for an invitation neither accepted nor revoked before its expiry', () => {
    expect(isPending(open, now)).toBe(true);
  });

  it('is false from the instant of expiry', () => {
    expect(isPending({ ...open, expiresAt: now }, now)).toBe(false);
    expect(isPending({ ...open, expiresAt: new Date(now.getTime() - 1) }, now)).toBe(false);
  });

  it('is false once accepted or revoked, however long it had left', () => {
    expect(isPending({ ...open, acceptedAt: now }, now)).toBe(false);
    expect(isPending({ ...open, revokedAt: now }, now)).toBe(false);
  });
});

import { FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { INPUT_LIMITS } from '../api/input-limits';
import {
  Invitation,
  Member,
  useChangeRole,
  useInvitations,
  useInvite,
  useIssuePasswordReset,
  useMembers,
  useRemoveMember,
  useEndMemberSessions,
  useRevokeInvitation,
} from '../api/team';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { ErrorNote } from '../components/ErrorNote';
import { Field, fieldText } from '../components/Field';
import { useMeContext } from '../components/Layout';
import { PageTitle } from '../components/PageTitle';
import { tabPanelProps, Tabs } from '../components/Tabs';
import { StackedTable } from '../components/StackedTable';
import { formatDate } from '../format';
import { can, Role, ROLE_SUMMARY } from '../roles';

const ROLE_NAMES: Record<Role, string> = { OWNER: 'Owner', ADMIN: 'Admin', DEVELOPER: 'Developer', ANALYST: 'Analyst' };
const ROLES = (Object.keys(ROLE_NAMES) as Role[]).map((role) => ({ role, label: `${ROLE_NAMES[role]}: ${ROLE_SUMMARY[role]}` }));
const LAST_OWNER = 'The last owner cannot be demoted or removed: make another member owner first.';
const OWNERS_ONLY = 'Only an owner changes, removes or resets an owner.';

/** The roles `actor` may hand out: only an OWNER grants OWNER. */
const grantable = (actor: Role) => ROLES.filter((r) => r.role !== 'OWNER' || actor === 'OWNER');

/** A one-time link to pass on, shown once: the token is in the fragment, which never reaches a server. */
const linkFor = (path: string, token: string) => `${location.origin}${path}#token=${token}`;

type Open =
  | { kind: 'invite' }
  | { kind: 'invited'; email: string; link: string | null; expiresAt: string }
  | { kind: 'revoke'; invitation: Invitation }
  | { kind: 'role'; member: Member }
  | { kind: 'remove'; member: Member }
  | { kind: 'reset'; member: Member }
  | { kind: 'reset-issued'; member: Member; link: string | null; expiresAt: string }
  | { kind: 'sessions'; member: Member }
  | null;

type TeamTab = 'members' | 'invitations';

/**
 * The tab shown, from the address (`?tab=invitations`): a reload or a shared link opens the same.
 * Only those who manage the team have the invitations tab; anything else shows the members.
 */
function useTeamTab(manage: boolean) {
  const [params, setParams] = useSearchParams();
  const tab: TeamTab = manage && params.get('tab') === 'invitations' ? 'invitations' : 'members';
  /** Replaces the address's entry: switching tabs is not a page to go back to. */
  const setTab = (next: TeamTab) =>
    setParams(
      (current) => {
        const params = new URLSearchParams(current);
        if (next === 'members') params.delete('tab');
        else params.set('tab', next);
        return params;
      },
      // At once, not as a transition: the tab shows without a frame of the old one.
      { replace: true, flushSync: true },
    );
  return [tab, setTab] as const;
}

export function TeamPage() {
  const me = useMeContext();
  const manage = can.manageTeam(me.role);
  const [open, setOpen] = useState<Open>(null);
  const close = () => setOpen(null);
  const [tab, setTab] = useTeamTab(manage);
  const members = useMembers();
  const invitations = useInvitations({ enabled: manage });
  const owners = members.data?.filter((m) => m.role === 'OWNER').length ?? 0;
  const count = (n: number | undefined) => (n === undefined ? '' : ` (${n})`);

  return (
    <>
      <PageTitle>Team</PageTitle>
      <p>
        Everyone who signs in to {me.account.name}, and their role.{' '}
        {manage
          ? 'Only an owner grants, changes or removes the owner role; the last owner always stays.'
          : 'Owners and admins invite people and change roles: ask one of them.'}
      </p>
      {manage && (
        <p className="actions">
          <button type="button" className="primary" onClick={() => setOpen({ kind: 'invite' })}>
            Invite
          </button>
        </p>
      )}

      {manage && (
        <Tabs
          label="Team"
          prefix="team"
          selected={tab}
          onSelect={setTab}
          tabs={[
            { id: 'members', label: `Members${count(members.data?.length)}` },
            { id: 'invitations', label: `Pending invitations${count(invitations.data?.length)}` },
          ]}
        />
      )}

      {tab === 'members' && (
        <div {...(manage ? tabPanelProps('team', 'members') : {})}>
          <h2 className={manage ? 'visually-hidden' : undefined}>Members</h2>
          <ErrorNote error={members.error} />
          {members.isPending && <p role="status">Loading members…</p>}
          {members.data && (
            <StackedTable role="region" aria-label={`Members of ${me.account.name}`} tabIndex={0}>
              <table>
                <caption className="visually-hidden">Members of {me.account.name}</caption>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Second factor</th>
                    <th scope="col">Joined</th>
                    {manage && (
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    )}
                  </tr>
                </thead>
                <tbody>
                  {members.data.map((member) => (
                    <tr key={member.id}>
                      <th scope="row">
                        {member.email}
                        {member.id === me.id && <span className="hint"> (you)</span>}
                      </th>
                      <td>
                        <span className="badge">{member.role}</span>
                      </td>
                      <td>{secondFactor(member)}</td>
                      <td>{formatDate(member.createdAt)}</td>
                      {manage && (
                        <td className="row-actions wrap">
                          <MemberActions member={member} myId={me.id} myRole={me.role} owners={owners} onOpen={setOpen} />
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </StackedTable>
          )}
        </div>
      )}

      {tab === 'invitations' && (
        <div {...tabPanelProps('team', 'invitations')}>
          <h2 className="visually-hidden">Pending invitations</h2>
          <ErrorNote error={invitations.error} />
          {invitations.isPending && <p role="status">Loading invitations…</p>}
          {invitations.data?.length === 0 && <p>No pending invitations.</p>}
          {invitations.data && invitations.data.length > 0 && (
            <StackedTable role="region" aria-label={`Pending invitations to ${me.account.name}`} tabIndex={0}>
              <table>
                <caption className="visually-hidden">Pending invitations to {me.account.name}</caption>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Invited by</th>
                    <th scope="col">Expires</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {invitations.data.map((invitation) => (
                    <tr key={invitation.id}>
                      <th scope="row">{invitation.email}</th>
                      <td>
                        <span className="badge">{invitation.role}</span>
                      </td>
                      <td>{invitation.invitedBy?.email ?? <span className="hint">a former member</span>}</td>
                      <td>{formatDate(invitation.expiresAt)}</td>
                      <td className="row-actions">
                        {invitation.role === 'OWNER' && me.role !== 'OWNER' ? (
                          <small className="hint">Only an owner revokes it</small>
                        ) : (
                          <button
                            type="button"
                            className="danger"
                            onClick={() => setOpen({ kind: 'revoke', invitation })}
                            aria-label={`Revoke the invitation of ${invitation.email}`}
                          >
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </StackedTable>
          )}
        </div>
      )}

      {open?.kind === 'invite' && (
        <InviteDialog
          myRole={me.role}
          onClose={close}
          onInvited={({ email, token, expiresAt }) => {
            // Behind the link's dialog, the list the new invitation is in.
            setTab('invitations');
            setOpen({ kind: 'invited', email, link: token && linkFor('/accept-invitation', token), expiresAt });
          }}
        />
      )}
      {open?.kind === 'invited' && (
        <Dialog title={`Invitation for ${open.email}`} onClose={close}>
          {open.link === null ? (
            <p className="notice">
              The invitation was e-mailed to {open.email}. Its link works once, until {formatDate(open.expiresAt)}.
            </p>
          ) : (
            <OneTimeLink
              link={open.link}
              purpose={`Send it to ${open.email} yourself: it works once, until ${formatDate(open.expiresAt)}.`}
            />
          )}
          <p className="actions">
            <button type="button" className="primary" onClick={close}>
              Done
            </button>
          </p>
        </Dialog>
      )}
      {open?.kind === 'revoke' && <RevokeDialog invitation={open.invitation} onClose={close} />}
      {open?.kind === 'role' && <RoleDialog member={open.member} myId={me.id} myRole={me.role} onClose={close} />}
      {open?.kind === 'remove' && <RemoveDialog member={open.member} myId={me.id} onClose={close} />}
      {open?.kind === 'sessions' && <EndSessionsDialog member={open.member} myId={me.id} onClose={close} />}
      {open?.kind === 'reset' && (
        <ResetDialog
          member={open.member}
          onClose={close}
          onIssued={({ token, expiresAt }) =>
            setOpen({ kind: 'reset-issued', member: open.member, link: token && linkFor('/reset-password', token), expiresAt })
          }
        />
      )}
      {open?.kind === 'reset-issued' && (
        <Dialog title={`Password reset for ${open.member.email}`} onClose={close}>
          {open.link === null ? (
            <p className="notice">
              A reset link was e-mailed to {open.member.email}. It works once, until {formatDate(open.expiresAt)}.
            </p>
          ) : (
            <OneTimeLink
              link={open.link}
              purpose={`Pass it on to ${open.member.email} yourself: it works once, until ${formatDate(open.expiresAt)}, and sets a new password.`}
            />
          )}
          <p className="actions">
            <button type="button" className="primary" onClick={close}>
              Done
            </button>
          </p>
        </Dialog>
      )}
    </>
  );
}

/**
 * What the signed-in OWNER or ADMIN may do to a member, and why not where the rules stop them: an
 * ADMIN does not touch an OWNER, the last OWNER stays, one's own password changes on the profile page.
 */
function MemberActions({
  member,
  myId,
  myRole,
  owners,
  onOpen,
}: {
  member: Member;
  myId: string;
  myRole: Role;
  owners: number;
  onOpen: (open: Open) => void;
}) {
  if (member.role === 'OWNER' && myRole !== 'OWNER') return <small className="hint">{OWNERS_ONLY}</small>;
  const lastOwner = member.role === 'OWNER' && owners <= 1;
  const lastOwnerHint = `last-owner-${member.id}`;
  return (
    <>
      <button
        type="button"
        onClick={() => onOpen({ kind: 'role', member })}
        aria-label={`Change role of ${member.email}`}
        disabled={lastOwner}
        aria-describedby={lastOwner ? lastOwnerHint : undefined}
      >
        Change role
      </button>
      {member.id === myId ? (
        <Link to="/profile" aria-label="Change password: yours, on your profile">
          Change password
        </Link>
      ) : (
        <button type="button" onClick={() => onOpen({ kind: 'reset', member })} aria-label={`Reset password of ${member.email}`}>
          Reset password
        </button>
      )}{' '}
      <button type="button" onClick={() => onOpen({ kind: 'sessions', member })} aria-label={`Sign out everywhere: ${member.email}`}>
        Sign out everywhere
      </button>{' '}
      <button
        type="button"
        className="danger"
        onClick={() => onOpen({ kind: 'remove', member })}
        aria-label={`Remove ${member.email}`}
        disabled={lastOwner}
        aria-describedby={lastOwner ? lastOwnerHint : undefined}
      >
        Remove
      </button>
      {lastOwner && (
        <small id={lastOwnerHint} className="hint block">
          {LAST_OWNER}
        </small>
      )}
    </>
  );
}

/** A link with a one-time token, to copy now: Gatehouse keeps only its hash. */
function OneTimeLink({ link, purpose }: { link: string; purpose: string }) {
  return (
    <>
      <p className="warning">This link is shown once: copy it now. {purpose}</p>
      <p>
        <code className="secret" data-testid="one-time-link">
          {link}
        </code>
      </p>
      <p className="actions">
        <CopyButton text={link} label="Copy link" />
      </p>
    </>
  );
}

function RoleSelect({ myRole, defaultValue }: { myRole: Role; defaultValue: Role }) {
  return (
    <Field
      label="Role"
      hint={myRole === 'OWNER' ? 'An owner may do everything; give it sparingly.' : 'Only an owner can make someone an owner.'}
    >
      {(props) => (
        <select {...props} name="role" defaultValue={defaultValue}>
          {grantable(myRole).map(({ role, label }) => (
            <option key={role} value={role}>
              {label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

function InviteDialog({
  myRole,
  onClose,
  onInvited,
}: {
  myRole: Role;
  onClose: () => void;
  /** `token`: null when Gatehouse e-mailed the link. */
  onInvited: (invitation: { email: string; token: string | null; expiresAt: string }) => void;
}) {
  const invite = useInvite({
    onSuccess: ({ email, emailed, token, expiresAt }) => onInvited({ email, token: emailed ? null : token, expiresAt }),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    invite.mutate({ email: fieldText(form, 'email').trim(), role: fieldText(form, 'role') as Role });
  }
  return (
    <Dialog title="Invite a member" onClose={onClose}>
      <form onSubmit={submit} aria-busy={invite.isPending}>
        <Field label="Email" hint="Inviting an address again replaces its pending invitation: only the newest link works.">
          {(props) => <input {...props} name="email" type="email" required maxLength={INPUT_LIMITS.email.max} autoComplete="off" />}
        </Field>
        <RoleSelect myRole={myRole} defaultValue="DEVELOPER" />
        <ErrorNote error={invite.error} />
        <p className="actions">
          <button type="submit" className="primary" disabled={invite.isPending}>
            Send invitation
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </p>
      </form>
    </Dialog>
  );
}

function RevokeDialog({ invitation, onClose }: { invitation: Invitation; onClose: () => void }) {
  const revoke = useRevokeInvitation(invitation.id, { onSuccess: onClose });
  return (
    <ConfirmDialog
      title={`Revoke the invitation of ${invitation.email}?`}
      action="Revoke invitation"
      danger
      mutation={revoke}
      onClose={onClose}
    >
      <p className="warning">Its link stops working at once. You can invite the address again later.</p>
    </ConfirmDialog>
  );
}

function RoleDialog({ member, myId, myRole, onClose }: { member: Member; myId: string; myRole: Role; onClose: () => void }) {
  const change = useChangeRole(member.id, { onSuccess: onClose });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    change.mutate(fieldText(new FormData(event.currentTarget), 'role') as Role);
  }
  return (
    <Dialog title={`Change role of ${member.email}`} onClose={onClose}>
      <form onSubmit={submit} aria-busy={change.isPending}>
        <RoleSelect myRole={myRole} defaultValue={member.role} />
        {member.id === myId && <p className="warning">This is your own role: a role you give up, you cannot give yourself back.</p>}
        <p className="hint">Invitations this member sent for roles the new one could not give are revoked.</p>
        <ErrorNote error={change.error} />
        <p className="actions">
          <button type="submit" className="primary" disabled={change.isPending}>
            Save role
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </p>
      </form>
    </Dialog>
  );
}

function RemoveDialog({ member, myId, onClose }: { member: Member; myId: string; onClose: () => void }) {
  const remove = useRemoveMember(member.id, { onSuccess: onClose });
  return (
    <ConfirmDialog title={`Remove ${member.email}?`} action="Remove member" danger mutation={remove} onClose={onClose}>
      <p className="warning">
        {member.id === myId
          ? 'This is you: you are signed out at once and cannot sign in to this account again unless someone invites you.'
          : `${member.email} is signed out at once and can no longer sign in; invitations they sent stop working. The account's API keys keep working.`}
      </p>
    </ConfirmDialog>
  );
}

/** `onIssued` gets a null token when Gatehouse e-mailed the link. */
function ResetDialog({
  member,
  onClose,
  onIssued,
}: {
  member: Member;
  onClose: () => void;
  onIssued: (issued: { token: string | null; expiresAt: string }) => void;
}) {
  const reset = useIssuePasswordReset(member.id, {
    onSuccess: ({ emailed, token, expiresAt }) => onIssued({ token: emailed ? null : token, expiresAt }),
  });
  return (
    <ConfirmDialog title={`Reset password of ${member.email}?`} action="Make reset link" mutation={reset} onClose={onClose}>
      <p>
        Gatehouse makes a one-time link (1 hour) that sets a new password: e-mailed to them where this Gatehouse sends e-mail, otherwise
        shown to you to pass on. Their current password works until the link is used; then they are signed out everywhere. A newer reset
        ends this one.
      </p>
    </ConfirmDialog>
  );
}

/** Whether a member signs in with a second factor. */
function secondFactor(member: Member) {
  return member.mfa ? <span className="badge active">On</span> : <span className="badge">Off</span>;
}

function EndSessionsDialog({ member, myId, onClose }: { member: Member; myId: string; onClose: () => void }) {
  const [ended, setEnded] = useState(false);
  const end = useEndMemberSessions(member.id, { onSuccess: () => setEnded(true) });
  const self = member.id === myId;
  if (ended)
    return (
      <Dialog title={`${member.email} is signed out`} onClose={onClose}>
        <p role="status">Every session of {member.email} has ended: each browser must sign in again.</p>
        <p className="actions">
          <button type="button" className="primary" onClick={onClose}>
            Done
          </button>
        </p>
      </Dialog>
    );
  return (
    <ConfirmDialog title={`Sign out ${member.email} everywhere?`} action="Sign out everywhere" danger mutation={end} onClose={onClose}>
      <p>
        {self
          ? 'Every session of yours ends, this browser’s too: you sign in again.'
          : `Every browser ${member.email} is signed in with must sign in again, from its next request on. Their password stays: to lock them out, reset it or remove them.`}
      </p>
    </ConfirmDialog>
  );
}

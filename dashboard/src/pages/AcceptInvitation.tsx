import { Link, useNavigate } from 'react-router';
import { formatDate } from '../format';
import { useAcceptInvitation, useInvitationPreview } from '../api/auth';
import { LinkError } from '../components/LinkError';
import { MissingToken } from '../components/MissingToken';
import { NarrowPage } from '../components/NarrowPage';
import { NewPasswordForm } from '../components/NewPasswordForm';
import { useLinkToken } from '../link-token';

const CANNOT_BE_USED = (
  <>
    This invitation cannot be used any more: it was accepted already, revoked, replaced by a newer one or it expired (after 7 days), or
    whoever sent it has left the team or lost the right to invite. Ask an owner or admin of the team for a new one.
  </>
);

/** An invitation's link: whom it joins, then a password for the new user, who is then signed in. */
export function AcceptInvitationPage() {
  const token = useLinkToken();
  const navigate = useNavigate();
  const accept = useAcceptInvitation(token, { onSuccess: () => void navigate('/', { replace: true }) });
  const preview = useInvitationPreview(token, accept.isIdle);
  const invitation = preview.data;
  return (
    <NarrowPage title="Join your team">
      {token === null ? (
        <MissingToken what="invitation" />
      ) : (
        <>
          {invitation ? (
            <p>
              <strong>{invitation.invitedBy}</strong> invites you to join <strong>{invitation.accountName}</strong> as {invitation.role}.
              Choose a password for your new Gatehouse user: you then sign in as <strong>{invitation.email}</strong> with it. The invitation
              works until {formatDate(invitation.expiresAt)}.
            </p>
          ) : (
            <p>Choose a password for your new Gatehouse user. You then sign in with the invited address and this password.</p>
          )}
          {preview.error && !accept.error && (
            <LinkError
              error={preview.error}
              explain={{
                401: CANNOT_BE_USED,
              }}
            />
          )}
          <NewPasswordForm
            submitLabel="Join"
            pending={accept.isPending}
            onSubmit={(password) => accept.mutate(password)}
            error={
              <LinkError
                error={accept.error}
                explain={{
                  401: CANNOT_BE_USED,
                  409: (
                    <>
                      This address already has a Gatehouse user, and an address belongs to one account only.{' '}
                      <Link to="/sign-in">Sign in</Link> instead, or ask the team to invite another address.
                    </>
                  ),
                }}
              />
            }
          />
        </>
      )}
      <p>
        Already a member? <Link to="/sign-in">Sign in</Link>.
      </p>
    </NarrowPage>
  );
}

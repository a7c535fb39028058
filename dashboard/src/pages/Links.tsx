/**
 * The pages people reach from an e-mail or a passed-on link: the one-time token is in the fragment
 * (`#token=…`, which browsers never send to a server), read once and then taken out of the address
 * bar, so it stays out of history, bookmarks and screenshots.
 */
import { FormEvent, ReactNode, useEffect, useRef, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { useAcceptInvitation, useAcceptPasswordReset, useRequestPasswordReset } from '../api/auth';
import { ApiError } from '../api/errors';
import { useConfirmSignup } from '../api/signup';
import { ErrorNote } from '../components/ErrorNote';
import { Field } from '../components/Field';
import { NarrowPage } from '../components/NarrowPage';
import { newPasswordOf, NewPasswordTwice } from '../components/Password';

/** The token of `#token=…`, read on the first render; the fragment then leaves the address bar. */
function useLinkToken(): string | null {
  const location = useLocation();
  const navigate = useNavigate();
  const inHash = new URLSearchParams(location.hash.slice(1)).get('token') || null;
  const [token, setToken] = useState(inHash);
  // A link opened in a tab already on this page changes only the fragment: the page stays, the token is new.
  if (inHash !== null && inHash !== token) setToken(inHash);
  useEffect(() => {
    // react-router's replace is history.replaceState, and keeps the router's own location in step.
    if (location.hash) navigate({ pathname: location.pathname, search: location.search }, { replace: true });
  }, [location.hash, location.pathname, location.search, navigate]);
  return token;
}

/** Once the link's answer has signed the person in: the dashboard. */
function useOpenDashboard() {
  const navigate = useNavigate();
  return () => void navigate('/', { replace: true });
}

/** The API's error, or for the statuses a page expects, what it means in that page's words. */
function LinkError({ error, explain }: { error: unknown; explain: Partial<Record<number, ReactNode>> }) {
  const words = error instanceof ApiError ? explain[error.status] : undefined;
  if (!words) return <ErrorNote error={error} />;
  return (
    <p className="error" role="alert">
      {words}
    </p>
  );
}

function MissingToken({ what }: { what: string }) {
  return (
    <p className="error" role="alert">
      This address has no {what} token in it. Open the link from the e-mail (or the one you were given) again, whole.
    </p>
  );
}

/** A new password, typed twice, within the server's policy. */
function NewPasswordForm({
  submitLabel,
  pending,
  error,
  onSubmit,
}: {
  submitLabel: string;
  pending: boolean;
  error: ReactNode;
  onSubmit: (password: string) => void;
}) {
  const [mismatch, setMismatch] = useState(false);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const password = newPasswordOf(new FormData(event.currentTarget));
    setMismatch(password === undefined);
    if (password !== undefined) onSubmit(password);
  }
  return (
    <form onSubmit={submit} aria-busy={pending}>
      <NewPasswordTwice mismatch={mismatch} />
      {error}
      <button type="submit" className="primary" disabled={pending}>
        {submitLabel}
      </button>
    </form>
  );
}

export function AcceptInvitationPage() {
  const token = useLinkToken();
  const openDashboard = useOpenDashboard();
  const accept = useAcceptInvitation(token, { onSuccess: openDashboard });
  return (
    <NarrowPage title="Join your team">
      {token === null ? (
        <MissingToken what="invitation" />
      ) : (
        <>
          <p>Choose a password for your new Gatehouse user. You then sign in with the invited address and this password.</p>
          <NewPasswordForm
            submitLabel="Join"
            pending={accept.isPending}
            onSubmit={(password) => accept.mutate(password)}
            error={
              <LinkError
                error={accept.error}
                explain={{
                  401: (
                    <>
                      This invitation cannot be used any more: it was accepted already, revoked, replaced by a newer one or it expired
                      (after 7 days), or whoever sent it has left the team or lost the right to invite. Ask an owner or admin of the team
                      for a new one.
                    </>
                  ),
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

export function ResetPasswordPage() {
  const token = useLinkToken();
  const openDashboard = useOpenDashboard();
  const reset = useAcceptPasswordReset(token, { onSuccess: openDashboard });
  return (
    <NarrowPage title="Set a new password">
      {token === null ? (
        <MissingToken what="reset" />
      ) : (
        <>
          <p>Your new password replaces the old one, and signs you out everywhere else.</p>
          <NewPasswordForm
            submitLabel="Set password and sign in"
            pending={reset.isPending}
            onSubmit={(password) => reset.mutate(password)}
            error={
              <LinkError
                error={reset.error}
                explain={{
                  401: (
                    <>
                      This reset link cannot be used any more: it was used already, it expired (after 1 hour) or a newer reset replaced it.{' '}
                      <Link to="/forgot-password">Ask for a new one</Link>.
                    </>
                  ),
                }}
              />
            }
          />
        </>
      )}
      <p>
        <Link to="/sign-in">Back to sign-in</Link>
      </p>
    </NarrowPage>
  );
}

export function ConfirmEmailPage() {
  const token = useLinkToken();
  const openDashboard = useOpenDashboard();
  const confirm = useConfirmSignup({ onSuccess: openDashboard });
  // Once per page load: the link works once, and a second call would answer 401.
  const sent = useRef(false);
  const { mutate } = confirm;
  useEffect(() => {
    if (token === null || sent.current) return;
    sent.current = true;
    mutate(token);
  }, [token, mutate]);
  return (
    <NarrowPage title="Confirm your email address">
      {token === null && <MissingToken what="confirmation" />}
      {confirm.isPending && <p role="status">Confirming your address…</p>}
      <LinkError
        error={confirm.error}
        explain={{
          401: (
            <>
              This confirmation link cannot be used: it was used already or it expired (after 24 hours). If you confirmed your address
              before, <Link to="/sign-in">sign in</Link>.
            </>
          ),
          404: <>This Gatehouse takes no sign-ups, so there is nothing to confirm.</>,
        }}
      />
      <p>
        <Link to="/sign-in">Go to sign-in</Link>
      </p>
    </NarrowPage>
  );
}

export function ForgotPasswordPage() {
  const request = useRequestPasswordReset();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    request.mutate(String(new FormData(event.currentTarget).get('email')));
  }
  return (
    <NarrowPage title="Forgot your password?">
      {request.isSuccess ? (
        <p className="notice" role="status">
          If an account has this address, an e-mail is on its way. Its link works once, for 1 hour.
        </p>
      ) : (
        <form onSubmit={submit} aria-busy={request.isPending}>
          <p>Enter the address you sign in with: we e-mail it a link to set a new password.</p>
          <Field label="Email">{(props) => <input {...props} name="email" type="email" autoComplete="username" required />}</Field>
          <LinkError
            error={request.error}
            explain={{
              404: (
                <>
                  This Gatehouse sends no e-mail. Ask an owner or admin of your team to reset your password: they get a link to pass on to
                  you.
                </>
              ),
            }}
          />
          <button type="submit" className="primary" disabled={request.isPending}>
            Send the link
          </button>
        </form>
      )}
      <p>
        <Link to="/sign-in">Back to sign-in</Link>
      </p>
    </NarrowPage>
  );
}

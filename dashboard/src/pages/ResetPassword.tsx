import { Link, useNavigate } from 'react-router';
import { useAcceptPasswordReset } from '../api/auth';
import { LinkError } from '../components/LinkError';
import { MissingToken } from '../components/MissingToken';
import { NarrowPage } from '../components/NarrowPage';
import { NewPasswordForm } from '../components/NewPasswordForm';
import { useLinkToken } from '../link-token';

/** A reset link: the new password, and the person is signed in. */
export function ResetPasswordPage() {
  const token = useLinkToken();
  const navigate = useNavigate();
  const reset = useAcceptPasswordReset(token, { onSuccess: () => void navigate('/', { replace: true }) });
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

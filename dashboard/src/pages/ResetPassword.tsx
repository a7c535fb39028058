import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useAcceptPasswordReset } from '../api/auth';
import { needsSecondStep, SecondStep } from '../api/sign-in';
import { LinkError } from '../components/LinkError';
import { MissingToken } from '../components/MissingToken';
import { NarrowPage } from '../components/NarrowPage';
import { NewPasswordForm } from '../components/NewPasswordForm';
import { SecondStepForm } from '../components/SecondStepForm';
import { useLinkToken } from '../link-token';

/** A reset link: the new password, and the person is signed in (after the second step, where they have one). */
export function ResetPasswordPage() {
  const token = useLinkToken();
  const navigate = useNavigate();
  const [step, setStep] = useState<SecondStep | null>(null);
  const home = () => void navigate('/', { replace: true });
  const reset = useAcceptPasswordReset(token, { onSuccess: (answer) => (needsSecondStep(answer) ? setStep(answer) : home()) });
  if (step)
    return (
      <NarrowPage title="Sign in: second step">
        <p className="notice" role="status">
          Your new password is set.
        </p>
        <SecondStepForm step={step} onDone={home} onRestart={() => void navigate('/sign-in', { replace: true })} />
      </NarrowPage>
    );
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

import { FormEvent, useState } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router';
import { useLogin, usePasskeySignIn } from '../api/auth';
import { needsSecondStep, SecondStep } from '../api/sign-in';
import { session, SignOutReason, useSession } from '../api/session';
import { useSignupOpen } from '../api/signup';
import { ErrorNote } from '../components/ErrorNote';
import { Field, fieldText } from '../components/Field';
import { NarrowPage } from '../components/NarrowPage';
import { PasskeyError } from '../components/PasskeyError';
import type { ReturnState } from '../components/RequireSession';
import { SecondStepForm } from '../components/SecondStepForm';

const REASONS: Record<SignOutReason, string> = {
  expired: 'Your session expired. Sign in again to go on where you were.',
  revoked: 'Your session ended (signed out elsewhere, or the password changed). Sign in again.',
  signed_out: 'You are signed out.',
};

export function SignInPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const from = (location.state as ReturnState | null)?.from ?? '/';
  const [reason] = useState(() => session.takeReason());
  const [step, setStep] = useState<SecondStep | null>(null);
  const signedIn = useSession();
  const signupOpen = useSignupOpen();
  const done = () => void navigate(from, { replace: true });
  const login = useLogin({ onSuccess: (answer) => (needsSecondStep(answer) ? setStep(answer) : done()) });
  const passkey = usePasskeySignIn({ onSuccess: done });
  if (signedIn && !login.isSuccess && !passkey.isSuccess && step === null) return <Navigate to={from} replace />;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    passkey.reset();
    login.mutate({ email: fieldText(form, 'email'), password: fieldText(form, 'password') });
  }

  if (step)
    return (
      <NarrowPage title="Sign in: second step">
        <SecondStepForm
          step={step}
          onDone={done}
          onRestart={() => {
            login.reset();
            setStep(null);
          }}
        />
      </NarrowPage>
    );

  return (
    <NarrowPage title="Sign in">
      {reason && (
        <p className="notice" role="status">
          {REASONS[reason]}
        </p>
      )}
      <form onSubmit={submit} aria-busy={login.isPending}>
        <Field label="Email">{(props) => <input {...props} name="email" type="email" autoComplete="username webauthn" required />}</Field>
        <Field label="Password">
          {(props) => <input {...props} name="password" type="password" autoComplete="current-password" required />}
        </Field>
        <ErrorNote error={login.error} />
        <button type="submit" className="primary" disabled={login.isPending}>
          Sign in
        </button>
      </form>
      <p>
        <button
          type="button"
          onClick={() => {
            login.reset();
            passkey.mutate(undefined);
          }}
          disabled={passkey.isPending}
        >
          Sign in with a passkey
        </button>
      </p>
      <PasskeyError error={passkey.error} />
      <p>
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
      {signupOpen.data && (
        <p>
          New to Gatehouse? <Link to="/sign-up">Create an account</Link>.
        </p>
      )}
    </NarrowPage>
  );
}

import { FormEvent, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../api/errors';
import { INPUT_LIMITS } from '../api/input-limits';
import { SIGNUP_CHALLENGE_URL, useSignup, useSignupOpen } from '../api/signup';
import { ErrorNote } from '../components/ErrorNote';
import { Field, fieldText } from '../components/Field';
import { NarrowPage } from '../components/NarrowPage';
import { NewPasswordField, PASSWORD_HINT } from '../components/Password';

export function SignUpPage() {
  const open = useSignupOpen();
  const [accepted, setAccepted] = useState(false);
  if (open.isPending) {
    return (
      <NarrowPage title="Create an account">
        <p role="status">Loading…</p>
      </NarrowPage>
    );
  }
  if (!open.data) {
    return (
      <NarrowPage title="Create an account">
        <p className="notice">This Gatehouse takes no sign-ups: its operator creates accounts, and their owners invite their teams.</p>
        <p>
          Have a user already? <Link to="/sign-in">Sign in</Link>.
        </p>
      </NarrowPage>
    );
  }
  if (accepted) {
    return (
      <NarrowPage title="Create an account">
        <p className="notice" role="status">
          Thank you: your sign-up is in. If Gatehouse e-mailed you a confirmation link, follow it first (it works for 24 hours); then sign
          in with the address and password you chose.
        </p>
        <p>
          <Link to="/sign-in">Go to sign-in</Link>
        </p>
      </NarrowPage>
    );
  }
  return (
    <NarrowPage title="Create an account">
      <SignUpForm onAccepted={() => setAccepted(true)} />
      <p>
        Have a user already? <Link to="/sign-in">Sign in</Link>.
      </p>
    </NarrowPage>
  );
}

function SignUpForm({ onAccepted }: { onAccepted: () => void }) {
  const [payload, setPayload] = useState<string | null>(null);
  const [missingProof, setMissingProof] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const signup = useSignup({
    onSuccess: onAccepted,
    onError: (error) => {
      // A refused solution is spent: a fresh puzzle for the next try.
      if (error instanceof ApiError && error.code === 'challenge_failed') {
        setPayload(null);
        setAttempt((n) => n + 1);
      }
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (payload === null) {
      setMissingProof(true);
      return;
    }
    const form = new FormData(event.currentTarget);
    signup.mutate({
      email: fieldText(form, 'email').trim(),
      password: fieldText(form, 'password'),
      accountName: fieldText(form, 'accountName').trim(),
      altcha: payload,
    });
  }

  return (
    <form onSubmit={submit} aria-busy={signup.isPending}>
      <p>A new account on the free plan, with you as its owner.</p>
      <Field label="Email">
        {(props) => <input {...props} name="email" type="email" autoComplete="username" required maxLength={INPUT_LIMITS.email.max} />}
      </Field>
      <NewPasswordField name="password" label="Password" hint={PASSWORD_HINT} />
      <Field label="Account name" hint="Your company or project: your team sees it.">
        {(props) => <input {...props} name="accountName" required maxLength={INPUT_LIMITS.name.max} autoComplete="organization" />}
      </Field>
      <ProofOfWork
        key={attempt}
        onSolved={(solved) => {
          setPayload(solved);
          if (solved !== null) setMissingProof(false);
        }}
      />
      {missingProof && (
        <p className="error" role="alert">
          Check the box “I’m not a robot” first, and wait a second while your browser proves it.
        </p>
      )}
      <ErrorNote error={signup.error} />
      <button type="submit" className="primary" disabled={signup.isPending}>
        Create account
      </button>
    </form>
  );
}

/**
 * ALTCHA's widget, loaded on first use: the browser solves the sign-up challenge (a second or so),
 * starting as soon as the person is in the form, and `onSolved` gets the solution (null when it expires or fails).
 */
function ProofOfWork({ onSolved }: { onSolved: (payload: string | null) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const solved = useRef(onSolved);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    solved.current = onSolved;
  });
  useEffect(() => {
    let unmount: (() => void) | undefined;
    let gone = false;
    import('../components/altcha').then(
      ({ renderSignupChallenge }) => {
        if (!gone) unmount = renderSignupChallenge(host.current!, SIGNUP_CHALLENGE_URL, (payload) => solved.current(payload));
      },
      () => setFailed(true),
    );
    return () => {
      gone = true;
      unmount?.();
    };
  }, []);
  return (
    <div className="field">
      <div ref={host} className="altcha-host" />
      <small className="hint">
        To keep bots out, your browser solves a small puzzle when you check the box (or as soon as you start typing): it takes a second or
        so.
      </small>
      {failed && (
        <p className="error" role="alert">
          The check could not be loaded. Reload the page to try again.
        </p>
      )}
    </div>
  );
}

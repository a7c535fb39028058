import { useQuery, useQueryClient } from '@tanstack/react-query';
import { FormEvent, ReactNode, useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import { meQuery, useLogin } from '../api/auth';
import { needsSecondStep, SecondStep } from '../api/sign-in';
import { session, Session } from '../api/session';
import { Dialog } from './Dialog';
import { ErrorNote } from './ErrorNote';
import { Field, fieldText } from './Field';
import { SecondStepForm } from './SecondStepForm';

/** How long before the session ends the warning shows. */
export const WARN_BEFORE_MS = 60_000;

/**
 * Keeps the page through the end of a session (not of its short-lived tokens, which renew on their
 * own): a minute before the session ends a warning offers "Stay signed in", and once it has ended
 * (here, or as the server says) a dialog asks for the password over the page. Nothing on the page is
 * thrown away, so what was typed in an open form or dialog is still there after signing in again.
 * Keyed by the session's end: a new session starts it afresh (no warning, no dialog).
 */
export function SessionGuard({ current }: { current: Session }) {
  const [now, setNow] = useState(() => Date.now());
  const [asked, setAsked] = useState(false);
  const [dismissed, setDismissed] = useState(false);
  const { endsAt, lapsed = false } = current;

  useEffect(() => {
    // Wake at the warning and at the expiry (timers, so a test's clock moves them too).
    const timers: number[] = [];
    const at = (moment: number, run: () => void) => {
      const wait = moment - Date.now();
      if (wait > 0) timers.push(window.setTimeout(run, Math.min(wait, 2 ** 31 - 1)));
    };
    at(endsAt - WARN_BEFORE_MS, () => setNow(Date.now()));
    at(endsAt, () => session.lapse());
    if (endsAt <= Date.now()) session.lapse();
    return () => timers.forEach((timer) => window.clearTimeout(timer));
  }, [endsAt]);

  const warn = !lapsed && now >= endsAt - WARN_BEFORE_MS;
  const dialogOpen = asked || (lapsed && !dismissed);
  return (
    <>
      {(warn || lapsed) && !dialogOpen && (
        <OnTop>
          <div className="session-banner" role="alert">
            <span>
              {lapsed
                ? 'Your session expired. What you typed is still here: sign in again to go on.'
                : 'Your session ends in less than a minute.'}
            </span>{' '}
            <button type="button" className="primary" onClick={() => setAsked(true)}>
              {lapsed ? 'Sign in again' : 'Stay signed in'}
            </button>
          </div>
        </OnTop>
      )}
      {dialogOpen && (
        <SignInAgainDialog
          lapsed={lapsed}
          onClose={() => {
            setAsked(false);
            setDismissed(true);
          }}
        />
      )}
    </>
  );
}

/**
 * Its children in the topmost open modal dialog when there is one (anything outside it is inert
 * there, so a button would be out of reach), otherwise at the top of the page.
 */
function OnTop({ children }: { children: ReactNode }) {
  const [host, setHost] = useState<HTMLDialogElement | null>(null);
  useEffect(() => {
    const find = () => {
      const open = [...document.querySelectorAll('dialog[open]')].filter((d) => d.matches(':modal'));
      setHost((open.at(-1) as HTMLDialogElement | undefined) ?? null);
    };
    find();
    const observer = new MutationObserver(find);
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['open'] });
    return () => observer.disconnect();
  }, []);
  return host ? createPortal(children, host) : <div className="session-banner-host">{children}</div>;
}

/** The password again (and the second step when the account has one), without leaving the page. */
function SignInAgainDialog({ lapsed, onClose }: { lapsed: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const me = useQuery({ ...meQuery(), enabled: false });
  const email = me.data?.email;
  const [step, setStep] = useState<SecondStep | null>(null);
  const done = () => {
    // Whatever failed with the old token is asked again with the new one.
    void queryClient.invalidateQueries();
  };
  const login = useLogin({ onSuccess: (answer) => (needsSecondStep(answer) ? setStep(answer) : done()) });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    login.mutate({ email: email ?? fieldText(form, 'email'), password: fieldText(form, 'password') });
  }

  return (
    <Dialog title={lapsed ? 'Sign in again' : 'Stay signed in'} onClose={onClose}>
      <p>
        {lapsed
          ? 'Your session expired. Sign in again to go on: the page and what you typed in it stay as they are.'
          : 'Your session ends in less than a minute. Enter your password to start a new one: the page stays as it is.'}
      </p>
      {step ? (
        <SecondStepForm
          step={step}
          onDone={done}
          onRestart={() => {
            login.reset();
            setStep(null);
          }}
        />
      ) : (
        <form onSubmit={submit} aria-busy={login.isPending}>
          <Field label="Email">
            {(props) =>
              email ? (
                <input {...props} name="email" type="email" autoComplete="username" value={email} readOnly />
              ) : (
                <input {...props} name="email" type="email" autoComplete="username" required />
              )
            }
          </Field>
          <Field label="Password">
            {(props) => <input {...props} name="password" type="password" autoComplete="current-password" required autoFocus />}
          </Field>
          <ErrorNote error={login.error} />
          <p className="actions">
            <button type="submit" className="primary" disabled={login.isPending}>
              {lapsed ? 'Sign in' : 'Stay signed in'}
            </button>
            <button type="button" onClick={onClose}>
              {lapsed ? 'Not now' : 'Cancel'}
            </button>
          </p>
        </form>
      )}
    </Dialog>
  );
}

import { FormEvent, useState } from 'react';
import { usePasskeySignIn, useSecondStep } from '../api/auth';
import type { SecondStep, TokenAnswer } from '../api/sign-in';
import { ErrorNote } from './ErrorNote';
import { Field, fieldText } from './Field';
import { PasskeyError } from './PasskeyError';

/**
 * The second step of a sign-in whose password was right: a code from the authenticator app, a
 * recovery code, or a passkey, as the login's answer offers (`methods`). `onDone` runs once the
 * session has started; `onRestart` goes back to the password (the step's token is spent or expired).
 */
export function SecondStepForm({
  step,
  onDone,
  onRestart,
}: {
  step: SecondStep;
  onDone: (answer: TokenAnswer) => void;
  onRestart: () => void;
}) {
  const offers = (method: SecondStep['methods'][number]) => step.methods.includes(method);
  const [mode, setMode] = useState<'totp' | 'recovery_code' | null>(
    offers('totp') ? 'totp' : offers('recovery_code') ? 'recovery_code' : null,
  );
  const code = useSecondStep({ onSuccess: onDone });
  const passkey = usePasskeySignIn({ onSuccess: onDone });
  const busy = code.isPending || passkey.isPending;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const typed = fieldText(new FormData(event.currentTarget), 'code').trim();
    passkey.reset();
    code.mutate({ mfaToken: step.mfaToken, code: mode === 'totp' ? typed.replace(/\s/g, '') : typed.toLowerCase() });
  }
  function switchTo(next: 'totp' | 'recovery_code') {
    code.reset();
    setMode(next);
  }

  return (
    <div className="second-step">
      <p>Your password was right. Now prove it is you with your second factor.</p>
      {mode && (
        <form onSubmit={submit} aria-busy={code.isPending}>
          {mode === 'totp' ? (
            <Field label="Code from your authenticator app" hint="The 6 digits the app shows for Gatehouse now.">
              {(props) => (
                <input
                  {...props}
                  key="totp"
                  name="code"
                  autoComplete="one-time-code"
                  inputMode="numeric"
                  pattern="[0-9 ]{6,7}"
                  maxLength={7}
                  required
                  autoFocus
                />
              )}
            </Field>
          ) : (
            <Field
              label="Recovery code"
              hint="One of the ten codes you saved when you turned the second factor on, such as abcde-12345. Each works once."
            >
              {(props) => <input {...props} key="recovery" name="code" autoComplete="off" spellCheck={false} required autoFocus />}
            </Field>
          )}
          <ErrorNote error={code.error} />
          <button type="submit" className="primary" disabled={busy}>
            Continue
          </button>
        </form>
      )}
      <PasskeyError error={passkey.error} />
      <p className="actions">
        {mode !== 'totp' && offers('totp') && (
          <button type="button" className="link" onClick={() => switchTo('totp')}>
            Use the authenticator app
          </button>
        )}
        {mode !== 'recovery_code' && offers('recovery_code') && (
          <button type="button" className="link" onClick={() => switchTo('recovery_code')}>
            Use a recovery code
          </button>
        )}
        {offers('passkey') && (
          <button
            type="button"
            className="link"
            disabled={busy}
            onClick={() => {
              code.reset();
              passkey.mutate(step.mfaToken);
            }}
          >
            Use a passkey
          </button>
        )}
        <button type="button" className="link" onClick={onRestart}>
          Start again
        </button>
      </p>
    </div>
  );
}

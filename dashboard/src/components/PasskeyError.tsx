import { ApiError } from '../api/errors';
import { ErrorNote } from './ErrorNote';

/** A passkey ceremony's failure: the API's error as usual, the browser's (cancelled, no passkey, not supported) in words. */
export function PasskeyError({ error }: { error: unknown }) {
  if (!error || error instanceof ApiError) return <ErrorNote error={error} />;
  const name = error instanceof Error ? error.name : '';
  const text =
    name === 'NotAllowedError'
      ? 'The passkey was not used: cancelled, timed out, or none on this device for this account. Try again, or use another way.'
      : name === 'InvalidStateError'
        ? 'This device already holds a passkey for your account.'
        : typeof window.PublicKeyCredential === 'undefined'
          ? 'This browser does not support passkeys.'
          : `The passkey did not work${error instanceof Error && error.message ? `: ${error.message}` : '.'}`;
  return (
    <p className="error" role="alert">
      {text}
    </p>
  );
}

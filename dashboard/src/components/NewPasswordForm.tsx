import { FormEvent, ReactNode, useState } from 'react';
import { newPasswordOf, NewPasswordTwice } from './Password';

/** A new password, typed twice, within the server's policy. */
export function NewPasswordForm({
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

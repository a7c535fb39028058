import { FormEvent } from 'react';
import { Link } from 'react-router';
import { useRequestPasswordReset } from '../api/auth';
import { useQuery } from '@tanstack/react-query';
import { serviceConfigQuery } from '../api/signup';
import { Field, fieldText } from '../components/Field';
import { LinkError } from '../components/LinkError';
import { NarrowPage } from '../components/NarrowPage';

/** Asks for a reset link by e-mail; where Gatehouse sends none, says whom to ask. */
export function ForgotPasswordPage() {
  const request = useRequestPasswordReset();
  const config = useQuery(serviceConfigQuery());
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    request.mutate(fieldText(new FormData(event.currentTarget), 'email'));
  }
  return (
    <NarrowPage title="Forgot your password?">
      {config.data?.emailEnabled === false ? (
        <p className="notice">
          This Gatehouse sends no e-mail, so it cannot send you a link. Ask an owner or admin of your team to reset your password: on the
          Team page they get a one-time link to pass on to you, which lets you choose a new one.
        </p>
      ) : request.isSuccess ? (
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

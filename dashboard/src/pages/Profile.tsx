import { FormEvent, useState } from 'react';
import { useChangePassword, useSignOut } from '../api/auth';
import { ErrorNote } from '../components/ErrorNote';
import { Field, fieldText } from '../components/Field';
import { useMeContext } from '../components/Layout';
import { PageTitle } from '../components/PageTitle';
import { newPasswordOf, NewPasswordTwice } from '../components/Password';
import { ROLE_SUMMARY } from '../roles';

export function ProfilePage() {
  const me = useMeContext();
  return (
    <>
      <PageTitle>Profile</PageTitle>
      <section className="panel" aria-labelledby="who-title">
        <h2 id="who-title">You</h2>
        <dl className="facts">
          <dt>Email</dt>
          <dd>{me.email}</dd>
          <dt>Role</dt>
          <dd>
            <span className="badge">{me.role}</span> {ROLE_SUMMARY[me.role]}
          </dd>
          <dt>Account</dt>
          <dd>
            {me.account.name} <span className="muted">({me.plan.name} plan)</span>
          </dd>
        </dl>
      </section>
      <ChangePassword email={me.email} />
      <SignOut />
    </>
  );
}

function ChangePassword({ email }: { email: string }) {
  const [mismatch, setMismatch] = useState(false);
  const change = useChangePassword();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const newPassword = newPasswordOf(data);
    setMismatch(newPassword === undefined);
    if (newPassword === undefined) return;
    change.mutate({ currentPassword: fieldText(data, 'currentPassword'), newPassword }, { onSuccess: () => form.reset() });
  }

  return (
    <section className="panel" aria-labelledby="password-title">
      <h2 id="password-title">Change password</h2>
      <p>
        Changing it signs you out everywhere else: every other browser must sign in again with the new one. This browser stays signed in, in
        every tab.
      </p>
      <form className="settings" onSubmit={submit} aria-busy={change.isPending}>
        {/* For password managers: the account the new password belongs to. */}
        <input type="hidden" name="username" autoComplete="username" value={email} readOnly />
        <Field label="Current password">
          {(props) => <input {...props} name="currentPassword" type="password" autoComplete="current-password" required />}
        </Field>
        <NewPasswordTwice mismatch={mismatch} />
        <ErrorNote error={change.error} />
        <p className="actions">
          <button type="submit" className="primary" disabled={change.isPending}>
            Change password
          </button>
          <span role="status" className="copied">
            {change.isSuccess ? 'Password changed. Your other sessions are signed out.' : ''}
          </span>
        </p>
      </form>
    </section>
  );
}

function SignOut() {
  const signOut = useSignOut();
  return (
    <section className="panel" aria-labelledby="sign-out-title">
      <h2 id="sign-out-title">Sign out</h2>
      <p>Ends this browser's session, in every tab: its tokens stop working at once. Your other sessions go on.</p>
      <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
        Sign out of this browser
      </button>
    </section>
  );
}

import { INPUT_LIMITS } from '../api/input-limits';
import { Field, fieldText } from './Field';

const { min, max } = INPUT_LIMITS.password;
/** The server's password policy (docs/API.md), in a line. */
export const PASSWORD_HINT = `${min} to ${max} characters, not your email address. A long phrase is easiest to remember.`;

/** A labelled new-password field within the server's policy (password managers offer to generate one). */
export function NewPasswordField({ name, label, hint }: { name: string; label: string; hint?: string }) {
  return (
    <Field label={label} hint={hint}>
      {(props) => <input {...props} name={name} type="password" autoComplete="new-password" required minLength={min} maxLength={max} />}
    </Field>
  );
}

/** A new password typed twice (form fields `password` and `confirm`), and the alert when the two differ. */
export function NewPasswordTwice({ mismatch }: { mismatch: boolean }) {
  return (
    <>
      <NewPasswordField name="password" label="New password" hint={PASSWORD_HINT} />
      <NewPasswordField name="confirm" label="Repeat the new password" />
      {mismatch && (
        <p className="error" role="alert">
          The two passwords differ: type the same one twice.
        </p>
      )}
    </>
  );
}

/** The new password of a form holding NewPasswordTwice, or undefined when its two entries differ. */
export function newPasswordOf(form: FormData): string | undefined {
  const password = fieldText(form, 'password');
  return password === fieldText(form, 'confirm') ? password : undefined;
}

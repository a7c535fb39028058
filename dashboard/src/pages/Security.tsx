import { FormEvent, ReactNode, useEffect, useRef, useState } from 'react';
import type { Passkey, SignInSession } from '../api/sign-in';
import {
  useAddPasskey,
  useConfirmTotp,
  useEndSession,
  useMfaStatus,
  usePasskeys,
  useRegenerateRecoveryCodes,
  useRemovePasskey,
  useRemoveTotp,
  useRenamePasskey,
  useSessions,
  useStartTotp,
} from '../api/mfa';
import { useSecondFactorDemanded } from '../api/session';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { ErrorNote } from '../components/ErrorNote';
import { Field, fieldText } from '../components/Field';
import { useMeContext } from '../components/Layout';
import { PageTitle } from '../components/PageTitle';
import { PasskeyError } from '../components/PasskeyError';
import { QrCode } from '../components/QrCode';
import { RecoveryCodes } from '../components/RecoveryCodes';
import { StackedTable } from '../components/StackedTable';
import { formatDate } from '../format';

type Open =
  | { kind: 'totp' }
  | { kind: 'remove-totp' }
  | { kind: 'recovery' }
  | { kind: 'add-passkey' }
  | { kind: 'rename-passkey'; passkey: Passkey }
  | { kind: 'remove-passkey'; passkey: Passkey }
  | null;

/** The person's own sign-in protection: the authenticator app, recovery codes, passkeys, and where they are signed in. */
export function SecurityPage() {
  const me = useMeContext();
  const status = useMfaStatus();
  const demanded = useSecondFactorDemanded();
  const [open, setOpen] = useState<Open>(null);
  const close = () => setOpen(null);
  const hasFactor = status.data ? status.data.totp || status.data.passkeys > 0 : undefined;
  const mustAdd = hasFactor === false && (demanded || status.data?.required === true);

  return (
    <>
      <PageTitle>Security</PageTitle>
      {mustAdd && (
        <p className="warning" role="alert">
          Your account requires a second factor: {me.account.name} asks every member to sign in with one. Set up an authenticator app or add
          a passkey below to go on using the dashboard.
        </p>
      )}
      <p>
        A second factor keeps your account safe when your password is not: signing in then also takes a code from an authenticator app or a
        passkey.
      </p>
      <ErrorNote error={status.error} />

      <section className="panel" aria-labelledby="totp-title">
        <h2 id="totp-title">Authenticator app</h2>
        {status.data && (
          <>
            <p>
              {status.data.totp ? (
                <>
                  <span className="badge active">On</span> Signing in asks for the 6-digit code your app shows.
                </>
              ) : (
                <>
                  <span className="badge">Off</span> An app such as a password manager, Google Authenticator or Authy makes a new 6-digit
                  code every 30 seconds.
                </>
              )}
            </p>
            <p className="actions">
              {status.data.totp ? (
                <button type="button" className="danger" onClick={() => setOpen({ kind: 'remove-totp' })}>
                  Turn off the authenticator app
                </button>
              ) : (
                <button type="button" className="primary" onClick={() => setOpen({ kind: 'totp' })}>
                  Set up an authenticator app
                </button>
              )}
            </p>
          </>
        )}
      </section>

      {status.data && (status.data.totp || status.data.passkeys > 0 || status.data.recoveryCodesLeft > 0) && (
        <section className="panel" aria-labelledby="recovery-title">
          <h2 id="recovery-title">Recovery codes</h2>
          <p>
            {status.data.recoveryCodesLeft} of 10 recovery codes left. Each signs you in once when your app or passkey is not at hand.
            {status.data.recoveryCodesLeft <= 3 && ' Make new ones before you run out.'}
          </p>
          <p className="actions">
            <button type="button" onClick={() => setOpen({ kind: 'recovery' })}>
              Make new recovery codes
            </button>
          </p>
        </section>
      )}

      <Passkeys onOpen={setOpen} />
      <Sessions />

      {open?.kind === 'totp' && <TotpDialog email={me.email} onClose={close} />}
      {open?.kind === 'remove-totp' && <RemoveTotpDialog onClose={close} />}
      {open?.kind === 'recovery' && <RecoveryDialog email={me.email} onClose={close} />}
      {open?.kind === 'add-passkey' && <AddPasskeyDialog onClose={close} />}
      {open?.kind === 'rename-passkey' && <RenamePasskeyDialog passkey={open.passkey} onClose={close} />}
      {open?.kind === 'remove-passkey' && <RemovePasskeyDialog passkey={open.passkey} onClose={close} />}
    </>
  );
}

function Passkeys({ onOpen }: { onOpen: (open: Open) => void }) {
  const passkeys = usePasskeys();
  return (
    <section className="panel" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p>
        A passkey signs you in with this device's screen lock or a security key, with no password or code to type, and cannot be phished.
      </p>
      <ErrorNote error={passkeys.error} />
      {passkeys.isPending && <p role="status">Loading passkeys…</p>}
      {passkeys.data?.length === 0 && <p>No passkeys yet.</p>}
      {passkeys.data && passkeys.data.length > 0 && (
        <StackedTable role="region" aria-label="Your passkeys" tabIndex={0}>
          <table>
            <caption className="visually-hidden">Your passkeys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Added</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {passkeys.data.map((passkey) => (
                <tr key={passkey.id}>
                  <th scope="row">{passkey.name}</th>
                  <td>{formatDate(passkey.createdAt)}</td>
                  <td>{formatDate(passkey.lastUsedAt, 'never')}</td>
                  <td className="row-actions">
                    <button type="button" onClick={() => onOpen({ kind: 'rename-passkey', passkey })} aria-label={`Rename ${passkey.name}`}>
                      Rename
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => onOpen({ kind: 'remove-passkey', passkey })}
                      aria-label={`Remove ${passkey.name}`}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </StackedTable>
      )}
      <p className="actions">
        <button type="button" className="primary" onClick={() => onOpen({ kind: 'add-passkey' })}>
          Add a passkey
        </button>
      </p>
    </section>
  );
}

function Sessions() {
  const sessions = useSessions();
  const [ending, setEnding] = useState<SignInSession | null>(null);
  return (
    <section className="panel" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are signed in</h2>
      <p>Each sign-in is a session until it expires or is signed out. Sign out one you do not recognise, then change your password.</p>
      <ErrorNote error={sessions.error} />
      {sessions.isPending && <p role="status">Loading sessions…</p>}
      {sessions.data && (
        <StackedTable role="region" aria-label="Your sessions" tabIndex={0}>
          <table>
            <caption className="visually-hidden">Your sessions</caption>
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">IP address</th>
                <th scope="col">Signed in</th>
                <th scope="col">Last seen</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.map((item) => (
                <tr key={item.id}>
                  <th scope="row">
                    {item.device}
                    {item.current && (
                      <>
                        {' '}
                        <span className="badge active">This device</span>
                      </>
                    )}
                  </th>
                  <td>{item.ip ?? '—'}</td>
                  <td>{formatDate(item.createdAt)}</td>
                  <td>{formatDate(item.lastSeenAt)}</td>
                  <td className="row-actions">
                    <button
                      type="button"
                      className="danger"
                      onClick={() => setEnding(item)}
                      aria-label={
                        item.current ? 'Sign out of this device' : `Sign out ${item.device}, signed in ${formatDate(item.createdAt)}`
                      }
                    >
                      Sign out
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </StackedTable>
      )}
      {ending && <EndSessionDialog item={ending} onClose={() => setEnding(null)} />}
    </section>
  );
}

function EndSessionDialog({ item, onClose }: { item: SignInSession; onClose: () => void }) {
  const end = useEndSession(item, { onSuccess: onClose });
  return (
    <Dialog title={item.current ? 'Sign out of this device?' : 'Sign out this session?'} onClose={onClose}>
      <p>
        {item.current
          ? 'This browser is signed out at once, in every tab.'
          : `${item.device} (${item.ip ?? 'address unknown'}), signed in ${formatDate(item.createdAt)}, is signed out from its next request on.`}
      </p>
      <ErrorNote error={end.error} />
      <p className="actions">
        <button type="button" className="danger" onClick={() => end.mutate()} disabled={end.isPending}>
          Sign out
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </p>
    </Dialog>
  );
}

/** Set up TOTP: the QR code and the secret, a code to confirm, then the recovery codes, once. */
function TotpDialog({ email, onClose }: { email: string; onClose: () => void }) {
  const start = useStartTotp();
  const [codes, setCodes] = useState<string[] | null>(null);
  const confirm = useConfirmTotp({ onSuccess: ({ recoveryCodes }) => setCodes(recoveryCodes) });
  const asked = useRef(false);
  useEffect(() => {
    // Once per dialog: a pending secret, replacing any earlier one.
    if (asked.current) return;
    asked.current = true;
    start.mutate();
  }, [start]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    confirm.mutate(fieldText(new FormData(event.currentTarget), 'code').replace(/\s/g, ''));
  }

  if (codes)
    return (
      <Dialog title="Authenticator app is on" onClose={onClose}>
        <p role="status">From now on, signing in asks for the code your app shows.</p>
        <RecoveryCodes codes={codes} email={email} />
        <p className="actions">
          <button type="button" className="primary" onClick={onClose}>
            I saved the codes
          </button>
        </p>
      </Dialog>
    );

  return (
    <Dialog title="Set up an authenticator app" onClose={onClose}>
      <ErrorNote error={start.error} />
      {start.isPending && <p role="status">Making a secret…</p>}
      {start.data && (
        <form onSubmit={submit} aria-busy={confirm.isPending}>
          <ol className="steps">
            <li>
              <p>Scan this QR code with your authenticator app:</p>
              <QrCode text={start.data.otpauthUrl} label="QR code of the authenticator secret" />
            </li>
            <li>
              <p>Or, where the app cannot scan, type this key into it (time-based):</p>
              <code className="secret">{start.data.secret}</code>
              <p className="actions">
                <CopyButton text={start.data.secret} label="Copy the key" />
              </p>
            </li>
            <li>
              <Field label="The 6-digit code the app shows now">
                {(props) => (
                  <input
                    {...props}
                    name="code"
                    autoComplete="one-time-code"
                    inputMode="numeric"
                    pattern="[0-9 ]{6,7}"
                    maxLength={7}
                    required
                  />
                )}
              </Field>
            </li>
          </ol>
          <ErrorNote error={confirm.error} />
          <p className="actions">
            <button type="submit" className="primary" disabled={confirm.isPending}>
              Turn on
            </button>
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </p>
        </form>
      )}
    </Dialog>
  );
}

/** A dialog that asks for the password before a change to the second factors. */
function PasswordDialog({
  title,
  action,
  danger = false,
  mutation,
  onClose,
  children,
}: {
  title: string;
  action: string;
  danger?: boolean;
  mutation: { mutate: (password: string) => void; isPending: boolean; error: unknown };
  onClose: () => void;
  children: ReactNode;
}) {
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    mutation.mutate(fieldText(new FormData(event.currentTarget), 'password'));
  }
  return (
    <Dialog title={title} onClose={onClose}>
      {children}
      <form onSubmit={submit} aria-busy={mutation.isPending}>
        <Field label="Your password">
          {(props) => <input {...props} name="password" type="password" autoComplete="current-password" required />}
        </Field>
        <ErrorNote error={mutation.error} />
        <p className="actions">
          <button type="submit" className={danger ? 'danger' : 'primary'} disabled={mutation.isPending}>
            {action}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </p>
      </form>
    </Dialog>
  );
}

function RemoveTotpDialog({ onClose }: { onClose: () => void }) {
  const remove = useRemoveTotp({ onSuccess: onClose });
  return (
    <PasswordDialog title="Turn off the authenticator app?" action="Turn off" danger mutation={remove} onClose={onClose}>
      <p>Signing in no longer asks for its code. Without a passkey either, your recovery codes stop working too.</p>
    </PasswordDialog>
  );
}

function RecoveryDialog({ email, onClose }: { email: string; onClose: () => void }) {
  const regenerate = useRegenerateRecoveryCodes();
  if (regenerate.data)
    return (
      <Dialog title="New recovery codes" onClose={onClose}>
        <RecoveryCodes codes={regenerate.data.recoveryCodes} email={email} />
        <p className="actions">
          <button type="button" className="primary" onClick={onClose}>
            I saved the codes
          </button>
        </p>
      </Dialog>
    );
  return (
    <PasswordDialog title="Make new recovery codes?" action="Make new codes" mutation={regenerate} onClose={onClose}>
      <p>Ten new codes replace all the old ones, used or not: the old ones stop working.</p>
    </PasswordDialog>
  );
}

function AddPasskeyDialog({ onClose }: { onClose: () => void }) {
  const add = useAddPasskey({ onSuccess: onClose });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    add.mutate(fieldText(new FormData(event.currentTarget), 'name').trim());
  }
  return (
    <Dialog title="Add a passkey" onClose={onClose}>
      <p>Your browser asks for this device's screen lock, or a security key. The name helps you tell your passkeys apart.</p>
      <form onSubmit={submit} aria-busy={add.isPending}>
        <Field label="Name" hint="Such as “Work laptop” or “Blue security key”.">
          {(props) => <input {...props} name="name" required maxLength={100} defaultValue={guessDeviceName()} />}
        </Field>
        <PasskeyError error={add.error} />
        <p className="actions">
          <button type="submit" className="primary" disabled={add.isPending}>
            {add.isPending ? 'Waiting for the passkey…' : 'Add passkey'}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </p>
      </form>
    </Dialog>
  );
}

/** A first name for a passkey made here: the platform the browser reports. */
function guessDeviceName(): string {
  const platform = (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData?.platform || navigator.platform;
  return platform ? `Passkey on ${platform}` : 'Passkey';
}

function RenamePasskeyDialog({ passkey, onClose }: { passkey: Passkey; onClose: () => void }) {
  const rename = useRenamePasskey(passkey.id, { onSuccess: onClose });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    rename.mutate(fieldText(new FormData(event.currentTarget), 'name').trim());
  }
  return (
    <Dialog title={`Rename ${passkey.name}`} onClose={onClose}>
      <form onSubmit={submit} aria-busy={rename.isPending}>
        <Field label="Name">{(props) => <input {...props} name="name" required maxLength={100} defaultValue={passkey.name} />}</Field>
        <ErrorNote error={rename.error} />
        <p className="actions">
          <button type="submit" className="primary" disabled={rename.isPending}>
            Rename
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </p>
      </form>
    </Dialog>
  );
}

function RemovePasskeyDialog({ passkey, onClose }: { passkey: Passkey; onClose: () => void }) {
  const remove = useRemovePasskey(passkey.id, { onSuccess: onClose });
  return (
    <PasswordDialog title={`Remove ${passkey.name}?`} action="Remove passkey" danger mutation={remove} onClose={onClose}>
      <p>It no longer signs you in. Remove it from the device or password manager that holds it too.</p>
    </PasswordDialog>
  );
}

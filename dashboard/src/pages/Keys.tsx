import { FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { INPUT_LIMITS } from '../api/input-limits';
import {
  ApiKey,
  ApiKeyWithSecret,
  KeyFields,
  Scope,
  useKeys,
  useRevokeKey,
  useRotateKey,
  useSaveKey,
  waitLabel,
  WaitMs,
} from '../api/keys';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { ErrorNote } from '../components/ErrorNote';
import { Field, fieldText } from '../components/Field';
import { GracePeriodField } from '../components/GracePeriodField';
import { useMeContext } from '../components/Layout';
import { PageTitle } from '../components/PageTitle';
import { ProtectFirstForm } from '../components/ProtectFirstForm';
import { WidgetEffortDialog } from '../components/WidgetEffortDialog';
import { WidgetKeyDialog } from '../components/WidgetKeyDialog';
import { StackedTable } from '../components/StackedTable';
import { formatDate, formatDay } from '../format';
import { parseOrigins } from '../origins';
import { can, Me } from '../roles';
import { verifySnippet, widgetSnippet } from '../snippets';

const SCOPES: { scope: Scope; label: string }[] = [
  { scope: 'widget', label: 'widget: challenges and nonces from your pages (a public key)' },
  { scope: 'verify', label: 'verify: check nonces from your server (keep it secret)' },
  { scope: 'public', label: 'public: the public API' },
];
type StatusFilter = 'active' | 'revoked' | 'all';

/** A widget key is public (it is in pages): without allowed origins any site may spend its allowance. */
const openToEverySite = (key: { scopes: readonly Scope[]; allowedOrigins: readonly string[] }) =>
  key.scopes.includes('widget') && key.allowedOrigins.length === 0;

function Origins({ apiKey }: { apiKey: ApiKey }) {
  if (openToEverySite(apiKey)) return <span className="badge warning">any site</span>;
  if (apiKey.allowedOrigins.length === 0) return <>any</>;
  return <>{apiKey.allowedOrigins.join(', ')}</>;
}

/** A key whose one scope is widget: public, so the API keeps it readable (`widgetKey`) once made or rotated. */
const widgetOnly = (scopes: readonly Scope[]) => scopes.length === 1 && scopes[0] === 'widget';
const readable = (key: ApiKey): key is ApiKey & { widgetKey: string } => key.widgetKey !== null;

/** Whether this browser was told to hide the onboarding for this account ("Hide this guide"). */
const onboardingStore = (accountId: string) => `gatehouse:onboarding-hidden:${accountId}`;

type Open =
  | { kind: 'create' }
  | { kind: 'widget'; key: ApiKey & { widgetKey: string } }
  | { kind: 'edit'; key: ApiKey }
  | { kind: 'effort'; key: ApiKey }
  | { kind: 'rotate'; key: ApiKey }
  | { kind: 'revoke'; key: ApiKey }
  | { kind: 'secret'; name: string; secret: string; scopes: Scope[]; rotated: boolean }
  | null;

export function KeysPage() {
  const me = useMeContext();
  const [open, setOpen] = useState<Open>(null);
  const [status, setStatus] = useState<StatusFilter>('active');
  /** The onboarding's title while it is shown, null while hidden; undefined until the keys arrive. */
  const [onboarding, setOnboarding] = useState<string | null>();
  const manages = can.manageKeys(me.role);
  const keys = useKeys({ enabled: manages });
  const close = () => setOpen(null);
  const hasWidgetKey = keys.data?.some((k) => k.status === 'active' && k.scopes.includes('widget'));
  // Decided once, when the keys arrive: an account without a widget key is greeted by the onboarding,
  // which then stays until hidden, even after it made the key.
  const greeting = hasWidgetKey ? 'Protect a form' : 'Protect your first form';
  if (onboarding === undefined && hasWidgetKey !== undefined) {
    setOnboarding(!hasWidgetKey && localStorage.getItem(onboardingStore(me.account.id)) === null ? greeting : null);
  }
  if (!manages) {
    return (
      <>
        <PageTitle>API keys</PageTitle>
        <p>An analyst sees traffic, not keys: ask a developer, an admin or the owner of {me.account.name}.</p>
        <p>
          Protecting a form takes a widget key in its page and a verify key on its server: the <Link to="/guide">guide</Link> shows how.
        </p>
      </>
    );
  }
  const shown = keys.data?.filter((k) => status === 'all' || k.status === status) ?? [];
  const revokedCount = keys.data?.filter((k) => k.status === 'revoked').length ?? 0;
  return (
    <>
      <PageTitle>API keys</PageTitle>
      <p>
        Widget keys go in your pages (they are public: limit them to your sites with allowed origins, and see a widget key and its snippet
        in its row at any time); verify keys stay on your server, their secret shown once, when made or rotated.
      </p>
      <p className="actions">
        <button type="button" className="primary" onClick={() => setOpen({ kind: 'create' })}>
          Create key
        </button>
        {!onboarding && (
          <button type="button" onClick={() => setOnboarding(greeting)}>
            Protect a form
          </button>
        )}
        <label className="inline">
          Show{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value as StatusFilter)}>
            <option value="active">active keys</option>
            <option value="revoked">revoked keys ({revokedCount})</option>
            <option value="all">all keys</option>
          </select>
        </label>
      </p>
      <ErrorNote error={keys.error} />
      {keys.isPending && <p role="status">Loading keys…</p>}
      {onboarding && keys.data && (
        <ProtectFirstForm
          title={onboarding}
          readableWidgetKeys={keys.data.filter(readable)}
          takenNames={keys.data.filter((k) => k.status === 'active').map((k) => k.name)}
          onDismiss={() => {
            localStorage.setItem(onboardingStore(me.account.id), 'yes');
            setOnboarding(null);
          }}
        />
      )}
      {keys.data && keys.data.length === 0 && !onboarding && <p>No keys yet. Create one to call the API or embed the widget.</p>}
      {keys.data && keys.data.length > 0 && shown.length === 0 && <p>No {status} keys.</p>}
      {shown.length > 0 && (
        <StackedTable>
          <table>
            <caption className="visually-hidden">API keys of {me.account.name}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Allowed origins</th>
                <th scope="col">Status</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((key) => (
                <tr key={key.id}>
                  <th scope="row">
                    {key.name}
                    <small className="hint block">created {formatDay(key.createdAt)}</small>
                  </th>
                  <td>
                    <code>{key.prefix}…</code>
                    {readable(key) && (
                      <>
                        {' '}
                        <button
                          type="button"
                          className="link"
                          onClick={() => setOpen({ kind: 'widget', key })}
                          aria-label={`Snippet of ${key.name}`}
                        >
                          Snippet
                        </button>
                      </>
                    )}
                    {key.status === 'active' && key.scopes.includes('widget') && (
                      <button
                        type="button"
                        className="link block"
                        onClick={() => setOpen({ kind: 'effort', key })}
                        aria-label={`Proof of work of ${key.name}`}
                      >
                        Proof of work
                      </button>
                    )}
                    {!readable(key) && key.status === 'active' && widgetOnly(key.scopes) && (
                      <small className="hint block">
                        Made before widget keys were kept readable: rotate it to see it and its snippet here.
                      </small>
                    )}
                    {key.previousSecretExpiresAt && new Date(key.previousSecretExpiresAt) > new Date() && (
                      <small className="hint"> old secret works until {formatDate(key.previousSecretExpiresAt)}</small>
                    )}
                  </td>
                  <td>{key.scopes.join(', ')}</td>
                  <td>
                    <Origins apiKey={key} />
                  </td>
                  <td>
                    <span className={`badge ${key.status}`}>{key.status}</span>
                  </td>
                  <td>{formatDate(key.lastUsedAt, 'never')}</td>
                  <td>{formatDate(key.expiresAt, 'never')}</td>
                  <td className="row-actions">
                    {key.status === 'active' && (
                      <>
                        <button type="button" onClick={() => setOpen({ kind: 'edit', key })} aria-label={`Edit ${key.name}`}>
                          Edit
                        </button>
                        <button type="button" onClick={() => setOpen({ kind: 'rotate', key })} aria-label={`Rotate ${key.name}`}>
                          Rotate
                        </button>
                        <button
                          type="button"
                          className="danger"
                          onClick={() => setOpen({ kind: 'revoke', key })}
                          aria-label={`Revoke ${key.name}`}
                        >
                          Revoke
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </StackedTable>
      )}
      {open?.kind === 'create' && (
        <KeyForm
          me={me}
          onClose={close}
          onCreated={(created) =>
            setOpen({ kind: 'secret', name: created.name, secret: created.key, scopes: created.scopes, rotated: false })
          }
        />
      )}
      {open?.kind === 'edit' && <KeyForm me={me} existing={open.key} onClose={close} />}
      {open?.kind === 'rotate' && (
        <RotateDialog
          apiKey={open.key}
          onClose={close}
          onRotated={(rotated) =>
            setOpen({ kind: 'secret', name: rotated.name, secret: rotated.key, scopes: rotated.scopes, rotated: true })
          }
        />
      )}
      {open?.kind === 'revoke' && <RevokeDialog apiKey={open.key} onClose={close} />}
      {open?.kind === 'widget' && <WidgetKeyDialog apiKey={open.key} onClose={close} />}
      {open?.kind === 'effort' && <WidgetEffortDialog apiKey={open.key} onClose={close} />}
      {open?.kind === 'secret' && (
        <Dialog title={`The secret of ${open.name}`} onClose={close}>
          {widgetOnly(open.scopes) ? (
            <p className="notice">A widget key is public (it sits in your pages): it stays readable in its row, with its snippet.</p>
          ) : (
            <p className="warning">
              Copy it now: Gatehouse keeps only a hash and cannot show it again.
              {open.rotated && ' Rotating again or revoking the key are the ways out if it is lost.'}
            </p>
          )}
          <p>
            <code className="secret" data-testid="secret">
              {open.secret}
            </code>
          </p>
          <p className="actions">
            <CopyButton text={open.secret} label="Copy secret" />
          </p>
          <Snippets secret={open.secret} scopes={open.scopes} />
          <p className="actions">
            <button type="button" className="primary" onClick={close}>
              I have stored it
            </button>
          </p>
        </Dialog>
      )}
    </>
  );
}

/** The origins typed, with their scheme (docs/DASHBOARD.md: `http://` for localhost and IP addresses, `https://` elsewhere); what is no origin goes as typed, for the API to say why. */
const originsToSend = (text: string): string[] => parseOrigins(text).map(({ typed, origin }) => origin ?? typed);

/** Difficulty: the plan's (`me.plan`), or one of the waits the server offers (`me.limits`). */
function KeyForm({
  existing,
  me,
  onClose,
  onCreated,
}: {
  existing?: ApiKey;
  me: Me;
  onClose: () => void;
  onCreated?: (key: ApiKeyWithSecret) => void;
}) {
  const save = useSaveKey(existing?.id, {
    onSuccess: (key) => {
      if ('key' in key && onCreated) onCreated(key);
      else onClose();
    },
  });
  const waits = me.limits.challengeWaitMs as WaitMs[];
  const [scopes, setScopes] = useState<Scope[]>(existing?.scopes ?? ['widget']);
  const [origins, setOrigins] = useState(existing?.allowedOrigins.join('\n') ?? '');
  // The API refuses a secret scope on a readable widget key (409): its value is public already.
  const locked = existing?.widgetKey != null;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const difficulty = fieldText(form, 'challengeWaitMs');
    const expires = fieldText(form, 'expiresAt');
    const fields: KeyFields = {
      name: fieldText(form, 'name').trim(),
      scopes,
      allowedOrigins: originsToSend(fieldText(form, 'allowedOrigins')),
    };
    // Blank: the plan's difficulty. On an edit, null puts a key back on the plan's.
    if (difficulty) fields.challengeWaitMs = Number(difficulty) as WaitMs;
    else if (existing?.challengeWaitMs != null) fields.challengeWaitMs = null;
    if (!existing && expires) fields.expiresAt = new Date(expires).toISOString();
    save.mutate(fields);
  }

  return (
    <Dialog title={existing ? `Edit ${existing.name}` : 'Create an API key'} onClose={onClose}>
      <form onSubmit={submit} aria-busy={save.isPending}>
        <Field label="Name" hint="For people: where the key is used.">
          {(props) => <input {...props} name="name" required maxLength={INPUT_LIMITS.name.max} defaultValue={existing?.name} />}
        </Field>
        <fieldset>
          <legend>Scopes</legend>
          {locked && (
            <p className="hint">
              This widget key is public (readable, and in your pages): it keeps the widget scope alone. Create another key to verify.
            </p>
          )}
          {SCOPES.map(({ scope, label }) => (
            <label key={scope} className="check">
              <input
                type="checkbox"
                disabled={locked && scope !== 'widget'}
                checked={scopes.includes(scope)}
                onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>
        <Field
          label="Allowed origins"
          hint="One per line, such as https://www.example.com or localhost:8081 (without a scheme: http:// for localhost and IP addresses, https:// elsewhere). Empty: any origin may use the key."
        >
          {(props) => <textarea {...props} name="allowedOrigins" rows={3} value={origins} onChange={(e) => setOrigins(e.target.value)} />}
        </Field>
        <WillAllow text={origins} />
        {openToEverySite({ scopes, allowedOrigins: originsToSend(origins) }) && (
          <p className="warning" role="note">
            A widget key sits in your pages for anyone to read: with no allowed origins, any site can use it and spend your allowance. List
            your sites above.
          </p>
        )}
        {!existing && (
          <Field label="Expires (optional)" hint="Empty: the key works until it is revoked.">
            {(props) => <input {...props} name="expiresAt" type="datetime-local" />}
          </Field>
        )}
        <Field
          label="Challenge difficulty"
          hint="How long the widget works in a visitor's browser, at the median: a longer wait costs bots more. It rises by itself while a visitor or the key asks far faster than usual."
        >
          {(props) => (
            <select {...props} name="challengeWaitMs" defaultValue={existing?.challengeWaitMs ?? ''}>
              <option value="">Plan default ({waitLabel(me.plan.challengeWaitMs).toLowerCase()})</option>
              {waits.map((ms) => (
                <option key={ms} value={ms}>
                  {waitLabel(ms)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <ErrorNote error={save.error} />
        <p className="actions">
          <button type="submit" className="primary" disabled={save.isPending || scopes.length === 0}>
            {existing ? 'Save' : 'Create key'}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </p>
      </form>
    </Dialog>
  );
}

function RotateDialog({ apiKey, onClose, onRotated }: { apiKey: ApiKey; onClose: () => void; onRotated: (key: ApiKeyWithSecret) => void }) {
  const [grace, setGrace] = useState(3600);
  const rotate = useRotateKey(apiKey.id, grace, { onSuccess: onRotated });
  return (
    <ConfirmDialog title={`Rotate ${apiKey.name}`} action="Rotate" mutation={rotate} onClose={onClose}>
      <p>A new secret replaces the current one. Deploy it, then let the old one go.</p>
      <GracePeriodField
        label="The old secret keeps working for"
        none="None: the old secret stops at once"
        value={grace}
        onChange={setGrace}
      />
    </ConfirmDialog>
  );
}

/** The origins a key will allow, with their scheme, shown before it is saved: "Will allow: http://localhost:8081". */
function WillAllow({ text }: { text: string }) {
  const parsed = parseOrigins(text);
  if (parsed.length === 0) return null;
  const unreadable = parsed.filter((p) => p.origin === undefined).map((p) => p.typed);
  return (
    <p className="hint" role="status" data-testid="will-allow">
      Will allow: {parsed.flatMap((p) => (p.origin ? [p.origin] : [])).join(', ') || 'nothing yet'}
      {unreadable.length > 0 && <> · not an origin: {unreadable.join(', ')}</>}
    </p>
  );
}

function RevokeDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const revoke = useRevokeKey(apiKey.id, { onSuccess: onClose });
  return (
    <ConfirmDialog title={`Revoke ${apiKey.name}?`} action="Revoke key" danger mutation={revoke} onClose={onClose}>
      <p>
        The key <code>{apiKey.prefix}…</code> ({apiKey.scopes.join(', ')}), created {formatDay(apiKey.createdAt)}, last used{' '}
        {formatDate(apiKey.lastUsedAt, 'never')}.
      </p>
      <p className="warning">
        Every request with this key is refused from now on, on every instance. This cannot be undone: a new key would have a new secret.
      </p>
    </ConfirmDialog>
  );
}

/** How to use a new secret, as docs/PROTECT-A-FORM.md shows it, with this Gatehouse's address filled in. */
function Snippets({ secret, scopes }: { secret: string; scopes: Scope[] }) {
  const origin = window.location.origin;
  const snippets: { title: string; code: string }[] = [];
  if (scopes.includes('widget'))
    snippets.push({
      title: 'In your form (the widget key is public)',
      code: widgetSnippet(origin, secret),
    });
  if (scopes.includes('verify'))
    snippets.push({
      title: 'On your server, before acting on a form: is its nonce valid? (Keep this key secret.)',
      code: verifySnippet(origin, secret),
    });
  if (snippets.length === 0) return null;
  return (
    <details className="snippets">
      <summary>How to use it</summary>
      {snippets.map(({ title, code }) => (
        <div key={title}>
          <p>{title}</p>
          <pre>
            <code>{code}</code>
          </pre>
          <p className="actions">
            <CopyButton text={code} label="Copy snippet" />
          </p>
        </div>
      ))}
    </details>
  );
}

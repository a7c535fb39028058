import { FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { ApiKey, useSaveKey } from '../api/keys';
import { freeKeyName } from '../key-names';
import { asOrigin } from '../origins';
import { verifySnippet, widgetSnippet } from '../snippets';
import { CopyButton } from './CopyButton';
import { ErrorNote } from './ErrorNote';
import { Field, fieldText } from './Field';
import { Snippet } from './Snippet';
import { WidgetTrial } from './WidgetTrial';

/**
 * The keys page's onboarding (docs/DASHBOARD.md, "Protect a form"): a widget key limited to the
 * customer's site and its snippet, a verify key and the server's call, then "Try it". The verify
 * key's secret lives in this component's state only: leaving the page forgets it.
 */
export function ProtectFirstForm({
  title,
  readableWidgetKeys,
  takenNames,
  onDismiss,
}: {
  title: string;
  /** The account's active widget keys whose secret is readable: step 1 may reuse one. */
  readableWidgetKeys: ApiKey[];
  /** The names of the account's active keys: a new key takes another. */
  takenNames: readonly string[];
  onDismiss: () => void;
}) {
  const origin = window.location.origin;
  const headingId = useId();
  const [site, setSite] = useState<string>();
  const [typed, setTyped] = useState('');
  const willAllow = asOrigin(typed);
  const [widget, setWidget] = useState<{ name: string; key: string }>();
  const [verifyKey, setVerifyKey] = useState<string>();
  const createWidget = useSaveKey(undefined, { onSuccess: (k) => 'key' in k && setWidget({ name: k.name, key: k.key }) });
  const createVerify = useSaveKey(undefined, { onSuccess: (k) => 'key' in k && setVerifyKey(k.key) });

  function submitWidget(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const text = fieldText(new FormData(event.currentTarget), 'origin').trim();
    // What is no origin goes as typed: the API's answer says why.
    const allowed = asOrigin(text) ?? text;
    setSite(allowed);
    createWidget.mutate({
      name: freeKeyName(`Widget for ${allowed.replace(/^https?:\/\//, '')}`, takenNames),
      scopes: ['widget'],
      allowedOrigins: [allowed],
    });
  }

  return (
    <section className="panel onboarding" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      <p>
        Three steps: a widget key for your form's page, a verify key for its server, and a try right here. The{' '}
        <Link to="/guide">guide to protecting a form</Link> says more about each.
      </p>
      <ol className="onboarding-steps">
        <li>
          <h3>A widget key for your site</h3>
          {widget === undefined ? (
            <>
              <form onSubmit={submitWidget} aria-busy={createWidget.isPending}>
                <Field
                  label="Your site's address"
                  hint="The origin your form is served from, such as https://shop.example.com or localhost:8081 (without a scheme: http:// for localhost and IP addresses, https:// elsewhere): only pages there (and this dashboard) may use the key."
                >
                  {(props) => (
                    <input
                      {...props}
                      name="origin"
                      type="text"
                      inputMode="url"
                      required
                      placeholder="https://shop.example.com"
                      value={typed}
                      onChange={(e) => setTyped(e.target.value)}
                    />
                  )}
                </Field>
                {typed.trim() !== '' && (
                  <p className="hint" role="status" data-testid="will-allow">
                    {willAllow ? <>Will allow: {willAllow}</> : <>Not an address: type the origin, such as https://shop.example.com</>}
                  </p>
                )}
                <ErrorNote error={createWidget.error} />
                <p className="actions">
                  <button type="submit" className="primary" disabled={createWidget.isPending}>
                    Create widget key
                  </button>
                </p>
              </form>
              {readableWidgetKeys.length > 0 && (
                <p className="actions">
                  Or use one you have:
                  {readableWidgetKeys.map((k) => (
                    <button key={k.id} type="button" onClick={() => setWidget({ name: k.name, key: k.widgetKey! })}>
                      Use {k.name}
                    </button>
                  ))}
                </p>
              )}
            </>
          ) : (
            <>
              <p>
                <strong>{widget.name}</strong>
                {site && <> works on {site}</>}. It is public — it sits in your page — so it stays readable in the list below, with this
                snippet.
              </p>
              <Snippet title="Paste this into the page, inside the form:" code={widgetSnippet(origin, widget.key)} />
            </>
          )}
        </li>
        <li>
          <h3>A verify key for your server</h3>
          {verifyKey === undefined ? (
            <>
              <p>Your server sends each form's nonce to Gatehouse with this key before acting on the form. It is a secret, shown once.</p>
              <ErrorNote error={createVerify.error} />
              <p className="actions">
                <button
                  type="button"
                  className="primary"
                  disabled={createVerify.isPending}
                  onClick={() =>
                    createVerify.mutate({ name: freeKeyName('Server verify key', takenNames), scopes: ['verify'], allowedOrigins: [] })
                  }
                >
                  Create verify key
                </button>
              </p>
            </>
          ) : (
            <>
              <p className="warning">Copy it now into your server's configuration: Gatehouse keeps only a hash and cannot show it again.</p>
              <p>
                <code className="secret" data-testid="verify-secret">
                  {verifyKey}
                </code>
              </p>
              <p className="actions">
                <CopyButton text={verifyKey} label="Copy verify key" />
              </p>
              <Snippet
                title="On your server, before acting on a form: is its nonce valid? (The guide has it in Node too.)"
                code={verifySnippet(origin, verifyKey)}
                copyLabel="Copy the verify call"
              />
            </>
          )}
        </li>
        <li>
          <h3>Try it here</h3>
          <WidgetTrial widgetKey={widget?.key} verifyKey={verifyKey} />
        </li>
      </ol>
      <p className="actions">
        <button type="button" onClick={onDismiss}>
          Hide this guide
        </button>
      </p>
    </section>
  );
}

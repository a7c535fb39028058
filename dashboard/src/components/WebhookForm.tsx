import { FormEvent, useState } from 'react';
import { ApiError } from '../api/errors';
import { CreatedWebhook, useSaveWebhook, Webhook, WebhookEventType, WebhookFields } from '../api/webhooks';
import { WEBHOOK_EVENTS } from '../webhook-events';
import { Dialog } from './Dialog';
import { ErrorNote } from './ErrorNote';
import { Field, fieldText } from './Field';

const ALL = WEBHOOK_EVENTS.map((e) => e.type);
/** The API's caps (CreateWebhookEndpointDto). */
const MAX_URL = 2048;
const MAX_DESCRIPTION = 200;

/**
 * The URL was refused for what WEBHOOK_ALLOW_PRIVATE=true lets through (docs/WEBHOOKS.md): plain http,
 * or a loopback, private or unresolvable address — what a receiver on the developer's own machine meets.
 */
function refusedAsPrivate(error: unknown, url: string | undefined): boolean {
  if (!(error instanceof ApiError) || error.code !== 'validation_failed') return false;
  return (error.details ?? []).some(
    (d) =>
      d.field === 'url' &&
      (/loopback|private|does not resolve/.test(d.message) || (/https URL/.test(d.message) && /^http:\/\//i.test(url ?? ''))),
  );
}

/**
 * Registers an endpoint or, given `existing`, edits its URL, description and events. Every event
 * type checked (the default) sends `events: []`: all of them, those added later too.
 */
export function WebhookForm({
  existing,
  onClose,
  onCreated,
}: {
  existing?: Webhook;
  onClose: () => void;
  onCreated?: (created: CreatedWebhook) => void;
}) {
  const save = useSaveWebhook(existing?.id, {
    onSuccess: (webhook) => {
      if ('secret' in webhook && onCreated) onCreated(webhook);
      else onClose();
    },
  });
  const [events, setEvents] = useState<WebhookEventType[]>(existing && existing.events.length > 0 ? existing.events : ALL);
  const every = events.length === ALL.length;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const description = fieldText(form, 'description').trim();
    const fields: WebhookFields = { url: fieldText(form, 'url').trim(), events: every ? [] : events };
    // Emptied on edit: removed. On create an empty one is simply not sent.
    if (description) fields.description = description;
    else if (existing?.description) fields.description = null;
    save.mutate(fields);
  }

  return (
    <Dialog title={existing ? 'Edit webhook' : 'Add a webhook'} onClose={onClose}>
      <form onSubmit={submit} aria-busy={save.isPending}>
        <Field label="URL" hint="Where Gatehouse POSTs the events: an https address your server answers on.">
          {(props) => (
            <input
              {...props}
              name="url"
              type="url"
              required
              maxLength={MAX_URL}
              placeholder="https://shop.example.com/hooks/gatehouse"
              defaultValue={existing?.url}
            />
          )}
        </Field>
        <Field label="Description (optional)" hint="For people: what receives these events.">
          {(props) => <input {...props} name="description" maxLength={MAX_DESCRIPTION} defaultValue={existing?.description ?? ''} />}
        </Field>
        <fieldset>
          <legend>Events</legend>
          <p className="hint">All checked: every event type, those Gatehouse adds later too.</p>
          <label className="check">
            <input type="checkbox" checked={every} onChange={(e) => setEvents(e.target.checked ? ALL : [])} /> All events
          </label>
          {WEBHOOK_EVENTS.map(({ type, label }) => (
            <label key={type} className="check">
              <input
                type="checkbox"
                checked={events.includes(type)}
                onChange={(e) =>
                  setEvents(e.target.checked ? ALL.filter((t) => t === type || events.includes(t)) : events.filter((t) => t !== type))
                }
              />{' '}
              <code>{type}</code>: {label}
            </label>
          ))}
        </fieldset>
        <ErrorNote error={save.error} />
        {refusedAsPrivate(save.error, save.variables?.url) && (
          <p className="hint" data-testid="allow-private-hint">
            Testing with a receiver on your own machine or network (http, localhost, a private address)? Gatehouse takes those when its
            operator starts it with <code>WEBHOOK_ALLOW_PRIVATE=true</code> — for tests and private networks only.
          </p>
        )}
        <p className="actions">
          <button type="submit" className="primary" disabled={save.isPending || events.length === 0}>
            {existing ? 'Save' : 'Add webhook'}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </p>
        {events.length === 0 && <p className="hint">Choose at least one event type.</p>}
      </form>
    </Dialog>
  );
}

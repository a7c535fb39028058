import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useWebhooks, Webhook } from '../api/webhooks';
import { ErrorNote } from '../components/ErrorNote';
import { useMeContext } from '../components/Layout';
import { PageTitle } from '../components/PageTitle';
import { StackedTable } from '../components/StackedTable';
import { WebhookDeleteDialog } from '../components/WebhookDeleteDialog';
import { WebhookDeliveries } from '../components/WebhookDeliveries';
import { WebhookForm } from '../components/WebhookForm';
import { WebhookRotateDialog } from '../components/WebhookRotateDialog';
import { WebhookDialog, WebhookRow } from '../components/WebhookRow';
import { WebhookSecretDialog } from '../components/WebhookSecretDialog';
import { can } from '../roles';

type Open =
  | { kind: 'create' }
  | { kind: WebhookDialog; webhook: Webhook }
  | { kind: 'secret'; url: string; secret: string; previousSecretExpiresAt?: string | null }
  | null;

/** The account's webhook endpoints; `?endpoint=<id>` shows one endpoint's delivery log instead. */
export function WebhooksPage() {
  const me = useMeContext();
  const manages = can.manageWebhooks(me.role);
  const webhooks = useWebhooks({ enabled: manages });
  const [params] = useSearchParams();
  const [open, setOpen] = useState<Open>(null);
  const [tested, setTested] = useState<string | null>(null);
  const close = () => setOpen(null);
  if (!manages) {
    return (
      <>
        <PageTitle>Webhooks</PageTitle>
        <p>An analyst sees traffic, not webhooks: ask a developer, an admin or the owner of {me.account.name}.</p>
      </>
    );
  }
  const endpointId = params.get('endpoint');
  if (endpointId !== null) {
    const webhook = webhooks.data?.find((w) => w.id === endpointId);
    return (
      <>
        <PageTitle>Webhooks</PageTitle>
        <ErrorNote error={webhooks.error} />
        {webhooks.isPending && <p role="status">Loading webhooks…</p>}
        {webhook && <WebhookDeliveries webhook={webhook} />}
        {webhooks.data && !webhook && (
          <p>
            No such webhook in {me.account.name}: it may have been deleted. <Link to="/webhooks">All webhooks</Link>
          </p>
        )}
      </>
    );
  }
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <p>
        Gatehouse POSTs events to your endpoints, signed as Standard Webhooks says, and retries for about a day. Each endpoint&apos;s
        signing secret is shown once, when it is added or rotated.
      </p>
      <p className="actions">
        <button type="button" className="primary" onClick={() => setOpen({ kind: 'create' })}>
          Add webhook
        </button>
      </p>
      <p role="status">
        {tested && (
          <>
            A test event is on its way to <span className="url">{tested}</span>: its deliveries show how it went.
          </>
        )}
      </p>
      <ErrorNote error={webhooks.error} />
      {webhooks.isPending && <p role="status">Loading webhooks…</p>}
      {webhooks.data && webhooks.data.length === 0 && <p>No webhooks yet. Add one to hear of new keys, revocations and team changes.</p>}
      {webhooks.data && webhooks.data.length > 0 && (
        <StackedTable>
          <table>
            <caption className="visually-hidden">Webhooks of {me.account.name}</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Latest delivery</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {webhooks.data.map((webhook) => (
                <WebhookRow
                  key={webhook.id}
                  webhook={webhook}
                  onOpen={(kind) => setOpen({ kind, webhook })}
                  onTestSent={() => setTested(webhook.url)}
                />
              ))}
            </tbody>
          </table>
        </StackedTable>
      )}
      {open?.kind === 'create' && (
        <WebhookForm onClose={close} onCreated={(created) => setOpen({ kind: 'secret', url: created.url, secret: created.secret })} />
      )}
      {open?.kind === 'edit' && <WebhookForm existing={open.webhook} onClose={close} />}
      {open?.kind === 'rotate' && (
        <WebhookRotateDialog
          webhook={open.webhook}
          onClose={close}
          onRotated={(rotated) =>
            setOpen({
              kind: 'secret',
              url: open.webhook.url,
              secret: rotated.secret,
              previousSecretExpiresAt: rotated.previousSecretExpiresAt,
            })
          }
        />
      )}
      {open?.kind === 'delete' && <WebhookDeleteDialog webhook={open.webhook} onClose={close} onDeleted={close} />}
      {open?.kind === 'secret' && (
        <WebhookSecretDialog url={open.url} secret={open.secret} previousSecretExpiresAt={open.previousSecretExpiresAt} onClose={close} />
      )}
    </>
  );
}

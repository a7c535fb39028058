import { Link } from 'react-router';
import { useSendTestWebhook, useSetWebhookEnabled, Webhook } from '../api/webhooks';
import { formatDate } from '../format';
import { DeliveryStatus } from './DeliveryStatus';
import { ErrorNote } from './ErrorNote';
import { WebhookStatus } from './WebhookStatus';

export type WebhookDialog = 'edit' | 'rotate' | 'delete';

/** One endpoint in the list: what it receives, its state, its latest delivery, and what can be done to it. */
export function WebhookRow({
  webhook,
  onOpen,
  onTestSent,
}: {
  webhook: Webhook;
  onOpen: (dialog: WebhookDialog) => void;
  onTestSent: () => void;
}) {
  const test = useSendTestWebhook(webhook.id, { onSuccess: onTestSent });
  const toggle = useSetWebhookEnabled(webhook.id);
  const name = webhook.description ?? webhook.url;
  return (
    <tr>
      <th scope="row">
        <span className="url">{webhook.url}</span>
        {webhook.description && <small className="hint block">{webhook.description}</small>}
        {webhook.previousSecretExpiresAt && (
          <small className="hint block">old secret signs too until {formatDate(webhook.previousSecretExpiresAt)}</small>
        )}
      </th>
      <td>{webhook.events.length === 0 ? 'all events' : webhook.events.join(', ')}</td>
      <td>
        <WebhookStatus webhook={webhook} />
      </td>
      <td>
        {webhook.lastDeliveryStatus ? (
          <>
            <DeliveryStatus status={webhook.lastDeliveryStatus} />
            {webhook.lastDeliveryResponseStatus !== null && <> {webhook.lastDeliveryResponseStatus}</>}
            <small className="hint block">{formatDate(webhook.lastDeliveryAt)}</small>
          </>
        ) : (
          'none yet'
        )}
      </td>
      <td className="row-actions wrap">
        <Link to={`?endpoint=${webhook.id}`} aria-label={`Deliveries of ${name}`}>
          Deliveries
        </Link>
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending} aria-label={`Send test to ${name}`}>
          Send test
        </button>
        <button type="button" onClick={() => onOpen('edit')} aria-label={`Edit ${name}`}>
          Edit
        </button>
        <button
          type="button"
          onClick={() => toggle.mutate(!webhook.enabled)}
          disabled={toggle.isPending}
          aria-label={`${webhook.enabled ? 'Disable' : 'Enable'} ${name}`}
        >
          {webhook.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" onClick={() => onOpen('rotate')} aria-label={`Rotate secret of ${name}`}>
          Rotate secret
        </button>
        <button type="button" className="danger" onClick={() => onOpen('delete')} aria-label={`Delete ${name}`}>
          Delete
        </button>
        <ErrorNote error={test.error ?? toggle.error} />
      </td>
    </tr>
  );
}

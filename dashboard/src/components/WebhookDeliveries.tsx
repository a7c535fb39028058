import { Link } from 'react-router';
import { useDeliveries, useSendTestWebhook, Webhook } from '../api/webhooks';
import { ErrorNote } from './ErrorNote';
import { WebhookDeliveryItem } from './WebhookDeliveryItem';
import { WebhookStatus } from './WebhookStatus';

/**
 * An endpoint's delivery log (`/webhooks?endpoint=<id>`), newest first, 25 at a time; asked again
 * while a delivery is pending (api/webhooks.ts).
 */
export function WebhookDeliveries({ webhook }: { webhook: Webhook }) {
  const deliveries = useDeliveries(webhook.id);
  const test = useSendTestWebhook(webhook.id);
  const shown = deliveries.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <section aria-labelledby="deliveries-title">
      <p>
        <Link to="/webhooks">← All webhooks</Link>
      </p>
      <h2 id="deliveries-title">Deliveries</h2>
      <p>
        To <span className="url">{webhook.url}</span> <WebhookStatus webhook={webhook} />
      </p>
      {!webhook.enabled && (
        <p className="notice">
          Disabled: events are not sent to it, and its deliveries cannot be retried until it is enabled. A test is sent all the same.
        </p>
      )}
      <p className="actions">
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
          Send test
        </button>
        <button type="button" onClick={() => void deliveries.refetch()} disabled={deliveries.isFetching}>
          Refresh
        </button>
      </p>
      <ErrorNote error={test.error ?? deliveries.error} />
      {deliveries.isPending && <p role="status">Loading deliveries…</p>}
      {deliveries.data && shown.length === 0 && <p>No deliveries yet. "Send test" sends one.</p>}
      {shown.length > 0 && (
        <ol className="deliveries">
          {shown.map((delivery) => (
            <WebhookDeliveryItem key={delivery.id} endpointId={webhook.id} delivery={delivery} />
          ))}
        </ol>
      )}
      {deliveries.hasNextPage && (
        <p className="actions">
          <button type="button" onClick={() => void deliveries.fetchNextPage()} disabled={deliveries.isFetchingNextPage}>
            Load more
          </button>
        </p>
      )}
    </section>
  );
}

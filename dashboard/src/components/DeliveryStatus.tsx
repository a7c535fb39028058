import type { WebhookDelivery } from '../api/webhooks';

/** A delivery's status as a badge: delivered, pending (an attempt is due) or failed. */
export function DeliveryStatus({ status }: { status: WebhookDelivery['status'] }) {
  return <span className={`badge delivery-${status}`}>{status}</span>;
}

import type { Webhook } from '../api/webhooks';

/** Enabled or disabled, and why when Gatehouse disabled it. */
export function WebhookStatus({ webhook }: { webhook: Webhook }) {
  if (webhook.enabled) return <span className="badge active">enabled</span>;
  return (
    <>
      <span className="badge revoked">disabled</span>
      {webhook.disabledReason === 'gone' && <small className="hint block">by Gatehouse: the receiver answered 410 Gone</small>}
      {webhook.disabledReason === 'failing' && <small className="hint block">by Gatehouse: 5 days without a delivered event</small>}
    </>
  );
}

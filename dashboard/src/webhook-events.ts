import type { WebhookEventType } from './api/webhooks';

/** Every event type an endpoint may subscribe to, as docs/WEBHOOKS.md, "Events", lists them: each is sent. */
export const WEBHOOK_EVENTS: readonly { type: WebhookEventType; label: string }[] = [
  { type: 'api_key.created', label: 'an API key is created' },
  { type: 'api_key.revoked', label: 'an API key is revoked' },
  { type: 'member.joined', label: 'an invitation is accepted' },
  { type: 'member.removed', label: 'a member is removed' },
  { type: 'webhook.test', label: '"Send test" (sent whatever is chosen here)' },
  { type: 'api_key.expiring', label: 'an API key is about to expire' },
  { type: 'widget.surge_started', label: 'a surge of widget traffic starts' },
  { type: 'widget.surge_ended', label: 'a surge of widget traffic ends' },
  { type: 'rate_limit.exceeded', label: 'a key goes over its rate limit' },
];

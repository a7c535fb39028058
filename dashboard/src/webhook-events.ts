import type { WebhookEventType } from './api/webhooks';

/** Every event type an endpoint may subscribe to, as docs/WEBHOOKS.md, "Events", lists them; `later`: not sent yet. */
export const WEBHOOK_EVENTS: readonly { type: WebhookEventType; label: string; later?: true }[] = [
  { type: 'api_key.created', label: 'an API key is created' },
  { type: 'api_key.revoked', label: 'an API key is revoked' },
  { type: 'member.joined', label: 'an invitation is accepted' },
  { type: 'member.removed', label: 'a member is removed' },
  { type: 'webhook.test', label: '"Send test" (sent whatever is chosen here)' },
  { type: 'api_key.expiring', label: 'an API key is about to expire', later: true },
  { type: 'widget.surge_started', label: 'a surge of widget traffic starts', later: true },
  { type: 'widget.surge_ended', label: 'a surge of widget traffic ends', later: true },
  { type: 'rate_limit.exceeded', label: 'a key goes over its rate limit', later: true },
];

/** Every event type an endpoint can receive (docs/WEBHOOKS.md, "Events"). */
export const WEBHOOK_EVENT_TYPES = [
  'api_key.created',
  'api_key.revoked',
  'api_key.expiring',
  'widget.surge_started',
  'widget.surge_ended',
  'rate_limit.exceeded',
  'member.joined',
  'member.removed',
  'webhook.test',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Who made a change, in an event's data; null for Gatehouse itself. */
export interface EventActor {
  readonly id: string;
  readonly email: string;
}

/** The `data` of each event type: names the resource, never a secret. */
export interface WebhookEventData {
  'api_key.created': {
    apiKey: { id: string; name: string; prefix: string; scopes: string[]; expiresAt: string | null };
    actor: EventActor | null;
  };
  'api_key.revoked': { apiKey: { id: string; name: string; prefix: string }; actor: EventActor | null };
  'api_key.expiring': { apiKey: { id: string; name: string; prefix: string; expiresAt: string }; daysLeft: number };
  'widget.surge_started': { apiKey: { id: string; name: string }; level: number };
  'widget.surge_ended': { apiKey: { id: string; name: string } };
  'rate_limit.exceeded': { apiKey: { id: string; name: string }; endpoint: string; limit: number; refused: number };
  'member.joined': { member: { id: string; email: string; role: string } };
  'member.removed': { member: { id: string; email: string; role: string }; actor: EventActor | null };
  'webhook.test': { endpoint: { id: string; url: string }; message: string };
}

/** Delays before the 2nd, 3rd, … attempt of a delivery; after the last, it has failed (about 27.5 hours in all). */
export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000] as const;

/**
 * When the next attempt of a delivery is due, after `attemptsMade` failed attempts the last of which
 * ended at `now` (RETRY_DELAYS_MS); null after the eighth: there is none, the delivery has failed.
 */
export function nextAttemptAt(attemptsMade: number, now: Date): Date | null {
  const delay = attemptsMade >= 1 ? RETRY_DELAYS_MS[attemptsMade - 1] : undefined;
  return delay === undefined ? null : new Date(now.getTime() + delay);
}

const DAY_MS = 24 * 3_600_000;

/** The `api_key.expiring` notice due for a key: which one (7: the week's, 1: the last day's) and the days it says are left. */
export interface ExpiryNotice {
  readonly notice: 7 | 1;
  /** The whole days left, rounded up: 7 for the week's notice of a key made with longer, fewer for one made with less. */
  readonly daysLeft: number;
}

/**
 * The notice due, at `now`, for a key expiring at `expiresAt`: the week's within 7 days, the last
 * day's within 1; none before, nor once it has expired. A key made with 3 days left gets the week's
 * notice at once saying 3, then the last day's.
 */
export function expiryNoticeAt(expiresAt: Date, now: Date): ExpiryNotice | null {
  const left = expiresAt.getTime() - now.getTime();
  if (left <= 0 || left > 7 * DAY_MS) return null;
  return { notice: left <= DAY_MS ? 1 : 7, daysLeft: Math.ceil(left / DAY_MS) };
}

/** An endpoint whose deliveries have failed for this long without one delivered is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;
/** A receiver has this long to answer, headers and the part of the body kept. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer is kept with the attempt. */
export const RESPONSE_BODY_LIMIT = 1024;

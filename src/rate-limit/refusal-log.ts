import { Injectable } from '@nestjs/common';

/** The refusals of one API key since the log was last drained. */
export interface KeyRefusals {
  readonly keyId: string;
  readonly accountId: string;
  /** The endpoint of its first refusal in this batch, and that endpoint's limit. */
  readonly endpoint: string;
  readonly limit: number;
  refused: number;
}

/**
 * API keys refused by the rate limiter, gathered on the request path at the cost of a map update per
 * 429 and handed off the request path in batches (`drain`) — to the `rate_limit.exceeded` webhook
 * event (src/webhooks/webhook-notices.ts). Bounded: at most MAX_KEYS keys wait between drains.
 */
@Injectable()
export class RefusalLog {
  private static readonly MAX_KEYS = 10_000;
  private pending = new Map<string, KeyRefusals>();

  note(keyId: string, accountId: string, endpoint: string, limit: number): void {
    const seen = this.pending.get(keyId);
    if (seen !== undefined) seen.refused += 1;
    else if (this.pending.size < RefusalLog.MAX_KEYS) this.pending.set(keyId, { keyId, accountId, endpoint, limit, refused: 1 });
  }

  /** Everything noted since the last drain. */
  drain(): KeyRefusals[] {
    if (this.pending.size === 0) return [];
    const batch = [...this.pending.values()];
    this.pending = new Map();
    return batch;
  }
}

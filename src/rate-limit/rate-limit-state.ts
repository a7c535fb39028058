import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import type { FastifyReply } from 'fastify';

/** One limiter verdict: the numbers behind every rate-limit header of a response. */
export interface RateLimitState {
  readonly limit: number;
  /** Left after this request, >= 0. */
  readonly remaining: number;
  /** Whole seconds until the window resets, >= 0. */
  readonly resetSeconds: number;
  readonly exceeded: boolean;
}

export function toRateLimitState(limit: number, record: ThrottlerStorageRecord): RateLimitState {
  return {
    limit,
    remaining: Math.max(0, limit - record.totalHits),
    resetSeconds: Math.max(0, record.timeToExpire),
    exceeded: record.isBlocked,
  };
}

/**
 * X-RateLimit-* and the IETF fields (draft-ietf-httpapi-ratelimit-headers-09) from one source,
 * plus Retry-After (>= 1 s) on 429.
 */
export function writeRateLimitHeaders(reply: FastifyReply, s: RateLimitState): void {
  reply.header('X-RateLimit-Limit', s.limit);
  reply.header('X-RateLimit-Remaining', s.remaining);
  reply.header('X-RateLimit-Reset', s.resetSeconds);
  reply.header('RateLimit-Policy', `"default";q=${s.limit};w=60`);
  reply.header('RateLimit', `"default";r=${s.remaining};t=${s.resetSeconds}`);
  if (s.exceeded) reply.header('Retry-After', Math.max(1, s.resetSeconds));
}

export const RATE_LIMIT_HEADER_NAMES = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'Retry-After',
] as const;

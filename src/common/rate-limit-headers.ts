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

/** A counter's answer, as @nestjs/throttler's storage gives it (the fields read here). */
export interface CounterRecord {
  readonly totalHits: number;
  /** Seconds. */
  readonly timeToExpire: number;
  readonly isBlocked: boolean;
}

export function toRateLimitState(limit: number, record: CounterRecord): RateLimitState {
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
 *
 * The names are written in lower case, as Fastify stores and sends every header name anyway:
 * `reply.header` lower-cases the name it is given, and a name that was not lower case already
 * becomes a new string on every call, which V8 must then look up in its string table to use as a
 * property key (~1k instructions a header; docs/PERFORMANCE.md, "No new strings on the request path"). What reaches
 * the wire is the same.
 */
export function writeRateLimitHeaders(reply: FastifyReply, s: RateLimitState): void {
  reply.header('x-ratelimit-limit', s.limit);
  reply.header('x-ratelimit-remaining', s.remaining);
  reply.header('x-ratelimit-reset', s.resetSeconds);
  reply.header('ratelimit-policy', `"default";q=${s.limit};w=60`);
  reply.header('ratelimit', `"default";r=${s.remaining};t=${s.resetSeconds}`);
  if (s.exceeded) reply.header('retry-after', Math.max(1, s.resetSeconds));
}

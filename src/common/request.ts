import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal';
import type { RateLimitState } from '../rate-limit/rate-limit-state';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the AccessGuard (passport's `request.user`); null when unauthenticated. */
    user: Principal | null;
    /** The owner of a refused credential we still know (a revoked or expired key), for usage analytics. */
    attributedTo: Principal | null;
    /** The limiter's verdict for this request, written as headers on every response. */
    rateLimit: RateLimitState | null;
    /** `endpointOf` memo. */
    endpoint: string | null;
  }
}

export type Request = FastifyRequest;
export type Reply = FastifyReply;

/** Each matched route's endpoint string, made once (see endpointOf). */
const endpointsByRoute = new WeakMap<object, { readonly method: string; readonly endpoint: string }>();

/**
 * "Endpoint" of PRODUCT.md §5: method + route template, never the raw URL.
 *
 * Memoised per request (the limiter, the request log line and usage recording all ask, and Fastify
 * builds a new routeOptions object on every read), and per route: the same string object for every
 * request of a route, so the maps keyed by it (rate-limit counters, usage buckets) hash it once
 * instead of on every request (docs/PERFORMANCE.md, "A fifth machine"). Fastify's route config is
 * one object per registered route and method.
 */
export function endpointOf(req: FastifyRequest): string {
  if (req.endpoint !== null) return req.endpoint;
  const { url, config } = req.routeOptions;
  if (url === undefined) return (req.endpoint = `${req.method} (unmatched)`);
  let memo = endpointsByRoute.get(config);
  if (memo === undefined || memo.method !== req.method) endpointsByRoute.set(config, (memo = { method: req.method, endpoint: `${req.method} ${url}` }));
  return (req.endpoint = memo.endpoint);
}

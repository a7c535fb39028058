import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from './principal';
import type { RateLimitState } from './rate-limit-headers';

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
 * "Endpoint" of docs/API.md, "Rate limits": method + route template, never the raw URL; a HEAD request's is its GET's.
 *
 * Memoised per request (the limiter, the request log line and usage recording all ask, and Fastify
 * builds a new routeOptions object on every read), and per route: the same string object for every
 * request of a route, so the maps keyed by it (rate-limit counters, usage buckets) hash it once
 * instead of on every request (docs/PERFORMANCE.md, "No new strings on the request path"). Fastify's route config is
 * one object per registered route and method.
 */
export function endpointOf(req: FastifyRequest): string {
  if (req.endpoint !== null) return req.endpoint;
  const { url, config } = req.routeOptions;
  // HEAD is GET without the body (RFC 9110 §9.3.2): the same endpoint, so the same counter
  // (docs/API.md, "Rate limits") and the same row in analytics.
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  if (url === undefined) return (req.endpoint = `${method} (unmatched)`);
  let memo = endpointsByRoute.get(config);
  if (memo === undefined || memo.method !== method) endpointsByRoute.set(config, (memo = { method, endpoint: `${method} ${url}` }));
  return (req.endpoint = memo.endpoint);
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal';
import type { RateLimitState } from '../rate-limit/rate-limit-state';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication guard (passport's `request.user`); null when unauthenticated. */
    user: Principal | null;
    /** An authentication failure, kept until the rate limiter has counted the request. */
    authError: Error | null;
    /** The limiter's verdict for this request, written as headers on every response. */
    rateLimit: RateLimitState | null;
    /** `endpointOf` memo. */
    endpoint: string | null;
  }
}

export type Request = FastifyRequest;
export type Reply = FastifyReply;

/** "Endpoint" of PRODUCT.md §5: method + route template, never the raw URL. */
export function endpointOf(req: FastifyRequest): string {
  // Memoised: the limiter, the request log line and usage recording all ask, and Fastify builds a
  // new routeOptions object on every read.
  return (req.endpoint ??= `${req.method} ${req.routeOptions.url ?? '(unmatched)'}`);
}

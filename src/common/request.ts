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
  }
}

export type Request = FastifyRequest;
export type Reply = FastifyReply;

/** "Endpoint" of PRODUCT.md §5: method + route template, never the raw URL. */
export function endpointOf(req: FastifyRequest): string {
  return `${req.method} ${req.routeOptions.url ?? '(unmatched)'}`;
}

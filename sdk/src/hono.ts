import type { Context, MiddlewareHandler } from 'hono';
import { type MiddlewareOptions, nonceFromRequest, PROBLEM_CONTENT_TYPE, problemFor, verifyField } from './adapters/common';
import type { NonceVerifier, Verdict } from './types';

export { DEFAULT_FIELD, problemFor } from './adapters/common';
export type { GatehouseProblem, MiddlewareOptions } from './adapters/common';

/** The variable the middleware sets: `c.get('gatehouse')`. */
export type GatehouseEnv = { Variables: { gatehouse: Verdict } };

export interface HonoOptions extends MiddlewareOptions {
  /** Answers a refused request your way; default: 403 problem+json. */
  readonly onRefused?: (verdict: Exclude<Verdict, { accepted: true }>, c: Context<GatehouseEnv>) => Response | Promise<Response>;
}

/**
 * Hono middleware: verifies the nonce in the body's field (JSON, urlencoded or multipart), sets
 * `c.get('gatehouse')`, and answers 403 problem+json when it is not accepted. A configuration error
 * (a refused key) is thrown to Hono's onError.
 */
export function gatehouse(verifier: NonceVerifier, options: HonoOptions = {}): MiddlewareHandler<GatehouseEnv> {
  return async (c, next) => {
    const verdict = await verifyField(verifier, await nonceFromRequest(c.req.raw, options.field), options);
    c.set('gatehouse', verdict);
    if (!verdict.accepted) {
      if (options.onRefused) return options.onRefused(verdict, c);
      return c.body(JSON.stringify(problemFor(verdict)), 403, { 'Content-Type': PROBLEM_CONTENT_TYPE });
    }
    await next();
  };
}

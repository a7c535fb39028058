import { type MiddlewareOptions, nonceFromRequest, PROBLEM_CONTENT_TYPE, problemFor, verifyField, DEFAULT_FIELD } from './adapters/common';
import type { NonceVerifier, Verdict } from './types';

export { DEFAULT_FIELD, problemFor } from './adapters/common';
export type { GatehouseProblem, MiddlewareOptions } from './adapters/common';

export interface RouteOptions extends MiddlewareOptions {
  /** Answers a refused request your way; default: 403 problem+json. */
  readonly onRefused?: (verdict: Exclude<Verdict, { accepted: true }>, request: Request) => Response | Promise<Response>;
}

/**
 * Wraps a Next.js route handler (or any `(Request) => Response` handler): verifies the nonce in the
 * body's field (JSON, urlencoded or multipart; the handler can still read the body), answers 403
 * problem+json when the verdict is not accepted, and otherwise calls the handler with the verdict
 * as a third argument. A configuration error (a refused key) is thrown.
 *
 *     export const POST = withGatehouse(verifier, async (request, _ctx, verdict) => Response.json({ ok: true }));
 */
export function withGatehouse<Ctx = unknown>(
  verifier: NonceVerifier,
  handler: (request: Request, context: Ctx, verdict: Verdict) => Response | Promise<Response>,
  options: RouteOptions = {},
): (request: Request, context: Ctx) => Promise<Response> {
  return async (request, context) => {
    const verdict = await verifyField(verifier, await nonceFromRequest(request, options.field), options);
    if (verdict.accepted) return handler(request, context, verdict);
    if (options.onRefused) return options.onRefused(verdict, request);
    return new Response(JSON.stringify(problemFor(verdict)), { status: 403, headers: { 'Content-Type': PROBLEM_CONTENT_TYPE } });
  };
}

/**
 * For a server action: the verdict on the nonce in its FormData. Refuse unless `verdict.accepted`.
 *
 *     async function signUp(formData: FormData) {
 *       'use server';
 *       const verdict = await verifyFormData(verifier, formData);
 *       if (!verdict.accepted) return { error: 'Please complete the check again.' };
 *       …
 *     }
 */
export function verifyFormData(verifier: NonceVerifier, formData: FormData, options: MiddlewareOptions = {}): Promise<Verdict> {
  const values = formData.getAll(options.field ?? DEFAULT_FIELD);
  return verifyField(verifier, values.length === 1 ? values[0] : values.length === 0 ? undefined : values, options);
}

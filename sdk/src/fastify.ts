import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { type MiddlewareOptions, nonceFromBody, PROBLEM_CONTENT_TYPE, problemFor, verifyField } from './adapters/common';
import type { NonceVerifier, Verdict } from './types';

export { DEFAULT_FIELD, problemFor } from './adapters/common';
export type { GatehouseProblem, MiddlewareOptions } from './adapters/common';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verdict of @gatehouse/verify/fastify's preHandler. */
    gatehouse?: Verdict;
  }
}

export interface FastifyOptions extends MiddlewareOptions {
  /** Answers a refused request your way; default: 403 problem+json. */
  readonly onRefused?: (verdict: Exclude<Verdict, { accepted: true }>, request: FastifyRequest, reply: FastifyReply) => unknown;
}

/**
 * Fastify preHandler: verifies the nonce in `request.body[field]` (JSON; urlencoded with
 * @fastify/formbody), puts the verdict on `request.gatehouse`, and answers 403 problem+json when it
 * is not accepted. A configuration error (a refused key) is thrown to Fastify's error handler.
 */
export function gatehouse(verifier: NonceVerifier, options: FastifyOptions = {}): preHandlerAsyncHookHandler {
  return async function gatehousePreHandler(request, reply) {
    const verdict = await verifyField(verifier, nonceFromBody(request.body, options.field), options);
    request.gatehouse = verdict;
    if (verdict.accepted) return;
    if (options.onRefused) {
      await options.onRefused(verdict, request, reply);
      return reply;
    }
    return reply
      .code(403)
      .type(PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(problemFor(verdict)));
  };
}

import { type CanActivate, createParamDecorator, type ExecutionContext, HttpException } from '@nestjs/common';
import { type MiddlewareOptions, nonceFromBody, PROBLEM_CONTENT_TYPE, problemFor, verifyField } from './adapters/common';
import type { NonceVerifier, Verdict } from './types';

export { DEFAULT_FIELD, problemFor } from './adapters/common';
export type { GatehouseProblem, MiddlewareOptions } from './adapters/common';

interface HttpRequestLike {
  body?: unknown;
  gatehouse?: Verdict;
}
interface HttpResponseLike {
  header?: (name: string, value: string) => unknown;
  setHeader?: (name: string, value: string) => unknown;
}

/**
 * A NestJS guard: verifies the nonce in the request body's field, puts the verdict on the request
 * (read it with `@GatehouseVerdict()`), and refuses with 403 problem+json (an HttpException whose
 * response is the problem; Nest's default exception filter sends it as is). Works on Nest's Express
 * and Fastify platforms. Use it as `@UseGuards(new GatehouseGuard(verifier))`, or provide it as
 * APP_GUARD. A configuration error (a refused key) is thrown as is: Nest answers 500.
 */
export class GatehouseGuard implements CanActivate {
  constructor(
    private readonly verifier: NonceVerifier,
    private readonly options: MiddlewareOptions = {},
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<HttpRequestLike>();
    const verdict = await verifyField(this.verifier, nonceFromBody(request.body, this.options.field), this.options);
    request.gatehouse = verdict;
    if (verdict.accepted) return true;
    const response = http.getResponse<HttpResponseLike>();
    // Express's res.json and Fastify's reply.send keep a Content-Type already set.
    if (typeof response.header === 'function') response.header('Content-Type', PROBLEM_CONTENT_TYPE);
    else response.setHeader?.('Content-Type', PROBLEM_CONTENT_TYPE);
    throw new HttpException(problemFor(verdict), 403);
  }
}

/** The guard's verdict, as a handler parameter: `@GatehouseVerdict() verdict: Verdict`. */
export const GatehouseVerdict = createParamDecorator((_data: unknown, context: ExecutionContext): Verdict | undefined => {
  return context.switchToHttp().getRequest<HttpRequestLike>().gatehouse;
});

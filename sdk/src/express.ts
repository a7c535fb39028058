import { type MiddlewareOptions, nonceFromBody, PROBLEM_CONTENT_TYPE, problemFor, verifyField } from './adapters/common';
import type { NonceVerifier, Verdict } from './types';

export { DEFAULT_FIELD, problemFor } from './adapters/common';
export type { GatehouseProblem, MiddlewareOptions } from './adapters/common';

declare global {
  // Express's own way to type what middlewares add to a request (@types/express).
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The verdict of @gatehouse/verify/express's middleware. */
      gatehouse?: Verdict;
    }
  }
}

/** What the middleware needs of a request and a response (Express 4 and 5, Connect, Node's own). */
export interface ExpressLikeRequest {
  body?: unknown;
  gatehouse?: Verdict;
}
export interface ExpressLikeResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}
export type Next = (err?: unknown) => void;

export interface ExpressOptions extends MiddlewareOptions {
  /** Answers a refused request your way (an HTML page, a redirect); default: 403 problem+json. */
  readonly onRefused?: (
    verdict: Exclude<Verdict, { accepted: true }>,
    req: ExpressLikeRequest,
    res: ExpressLikeResponse,
    next: Next,
  ) => void;
}

/**
 * Express middleware: verifies the nonce in `req.body[field]` (mount express.json() or
 * express.urlencoded() first), puts the verdict on `req.gatehouse`, and answers 403 problem+json
 * when it is not accepted. A configuration error (a refused key) goes to `next(err)`.
 */
export function gatehouse(verifier: NonceVerifier, options: ExpressOptions = {}) {
  return (req: ExpressLikeRequest, res: ExpressLikeResponse, next: Next): void => {
    verifyField(verifier, nonceFromBody(req.body, options.field), options).then((verdict) => {
      req.gatehouse = verdict;
      if (verdict.accepted) return next();
      if (options.onRefused) return options.onRefused(verdict, req, res, next);
      res.statusCode = 403;
      res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
      res.end(JSON.stringify(problemFor(verdict)));
    }, next);
  };
}

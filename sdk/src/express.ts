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
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  gatehouse?: Verdict;
}
export interface ExpressLikeResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}
export type Next = (err?: unknown) => void;

/**
 * The middleware's options. `Req` and `Res` are your framework's request and response as
 * `onRefused` is given them: annotate its `res` (`res: express.Response`) to call `res.redirect`.
 */
export interface ExpressOptions<
  Req extends ExpressLikeRequest = ExpressLikeRequest,
  Res extends ExpressLikeResponse = ExpressLikeResponse,
> extends MiddlewareOptions {
  /** Answers a refused request your way (an HTML page, a redirect); default: 403 problem+json. */
  readonly onRefused?: (verdict: Exclude<Verdict, { accepted: true }>, req: Req, res: Res, next: Next) => void;
}

/** A warning through Node's process (the package's types do not assume Node's). */
function warn(message: string, code: string): void {
  const node = (globalThis as { process?: { emitWarning?(message: string, options: { code: string }): void } }).process;
  node?.emitWarning?.(message, { code });
}

/** A request that came with a body nothing parsed: no body parser for its type is mounted before the middleware. */
const unparsedBody = (req: ExpressLikeRequest): boolean =>
  req.body === undefined && (Number(req.headers?.['content-length']) > 0 || req.headers?.['transfer-encoding'] !== undefined);

/**
 * Express middleware: verifies the nonce in `req.body[field]` (mount express.json() or
 * express.urlencoded() first), puts the verdict on `req.gatehouse`, and answers 403 problem+json
 * when it is not accepted. A configuration error (a refused key) goes to `next(err)`. A body that
 * no parser read is refused as malformed (a visitor's request is no setup error) and, the first
 * time, named in a process warning.
 */
export function gatehouse<Req extends ExpressLikeRequest = ExpressLikeRequest, Res extends ExpressLikeResponse = ExpressLikeResponse>(
  verifier: NonceVerifier,
  options: ExpressOptions<Req, Res> = {},
) {
  let warned = false;
  return (req: Req, res: Res, next: Next): void => {
    if (!warned && unparsedBody(req)) {
      warned = true;
      warn(
        'The request body reached the Gatehouse middleware unparsed (req.body is undefined), so every form is refused as malformed: mount express.urlencoded() or express.json() before it.',
        'GATEHOUSE_UNPARSED_BODY',
      );
    }
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

import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { endpointOf, Reply, Request } from '../common/request';
import { DashboardPage } from '../dashboard/dashboard-page';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { writeRateLimitHeaders } from '../common/rate-limit-headers';
import { isDatabaseBusy, isDatabaseUnavailable } from '../prisma/database-errors';
import { AppError } from '../common/errors/app-error';
import { errorBody, ERROR_CONTENT_TYPE } from '../common/errors/error-body';
import { ErrorCode } from '../common/errors/error-codes';

const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'validation_failed',
  401: 'invalid_token',
  403: 'insufficient_permissions',
  404: 'not_found',
  405: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limit_exceeded',
  431: 'request_header_fields_too_large',
  503: 'service_unavailable',
};

/** Seconds a client should wait before retrying while the database is unreachable. */
const DATABASE_RETRY_AFTER_SECONDS = 5;
const DATABASE_BUSY = 'The database is busy; retry shortly.';

/**
 * Errors from Nest or Fastify (routing, body parsing) as AppErrors; an unreachable database is a
 * 503 (fast: the pool refuses or times out), and so is one too busy to start a transaction in time;
 * anything else is a 500.
 */
export function toAppError(exception: unknown): AppError {
  if (exception instanceof AppError) return exception;
  if (isDatabaseUnavailable(exception)) return new AppError('service_unavailable').withRetryAfter(DATABASE_RETRY_AFTER_SECONDS);
  if (isDatabaseBusy(exception)) return new AppError('service_unavailable', DATABASE_BUSY).withRetryAfter(1);
  if (exception instanceof HttpException) {
    const code = CODE_BY_STATUS[exception.getStatus()];
    if (code === 'validation_failed') {
      return new AppError(code, 'The request body is not valid JSON.', [{ field: 'body', message: 'must be a valid JSON document' }]);
    }
    if (code !== undefined) return new AppError(code);
  }
  return new AppError('internal_error');
}

/**
 * Answers every error of a request Fastify routed or refused while routing, with the body of
 * `errorBody` (docs/API.md, "Errors"). Requests that failed before the rate limiter ran (unknown route,
 * unparsable body, broken path) are counted per client IP here, so their answers carry the
 * rate-limit headers too.
 */
@Catch()
export class AppExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  constructor(
    private readonly rateLimits: RateLimitService,
    private readonly dashboard: DashboardPage,
  ) {}

  /**
   * Synchronous unless the request still has to be counted (it failed before the limiter ran):
   * a 429 from the limiter, the most frequent error under a flood, then costs no promise here.
   */
  catch(exception: unknown, host: ArgumentsHost): void | Promise<void> {
    const req = host.getArgByIndex<Request>(0);
    const reply = host.getArgByIndex<Reply>(1);
    const error = toAppError(exception);
    if (error.status >= 500) {
      if (req.raw.destroyed && !req.raw.complete) {
        // The client closed the connection before it sent the whole body (the body parser's
        // ECONNRESET): nobody is left to answer, and it is no fault of ours or of the database.
        this.logger.debug(`${endpointOf(req)}: the client went away before sending the whole request [${req.id}]`);
        return;
      }
      if (isDatabaseUnavailable(exception)) this.logger.warn(`${endpointOf(req)} answered 503: the database is unreachable [${req.id}]`);
      else if (error.message === DATABASE_BUSY)
        this.logger.warn(`${endpointOf(req)} answered 503: no transaction could start in time [${req.id}]`);
      else if (error.code === 'service_unavailable') this.logger.debug(`${endpointOf(req)} answered 503: ${error.message} [${req.id}]`);
      else this.logger.error(`${endpointOf(req)} failed [${req.id}]`, (exception as Error)?.stack);
    }
    if (req.rateLimit === null && req.url.startsWith('/api/')) return this.countThenAnswer(error, req, reply);
    if (error.code === 'not_found' && isBrowserPageRequest(req) && this.dashboard.send(req, reply, 404)) return;
    answer(error, req, reply);
  }

  private async countThenAnswer(error: AppError, req: Request, reply: Reply): Promise<void> {
    try {
      req.rateLimit = await this.rateLimits.hitAnonymous(req);
      writeRateLimitHeaders(reply, req.rateLimit);
      if (req.rateLimit.exceeded) error = new AppError('rate_limit_exceeded');
    } catch (err) {
      this.logger.warn(`Could not count ${req.id} against a rate limit: ${(err as Error).message}`);
    }
    answer(error, req, reply);
  }
}

/**
 * A browser asking for a page no route has (outside the API): it gets the dashboard, whose router
 * shows its not-found page with a way back, still with status 404. API clients, and anything under
 * /api/, keep the JSON 404.
 */
function isBrowserPageRequest(req: Request): boolean {
  return (
    (req.method === 'GET' || req.method === 'HEAD') &&
    req.routeOptions.url === undefined &&
    !req.url.startsWith('/api/') &&
    (req.headers.accept ?? '').includes('text/html')
  );
}

/** The documented error body (docs/API.md, "Errors"), with the error's own headers. */
function answer(error: AppError, req: Request, reply: Reply): void {
  if (error.challenge !== undefined) reply.header('www-authenticate', error.challenge);
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', error.retryAfterSeconds);
  reply.status(error.status).type(ERROR_CONTENT_TYPE).send(errorBody(error, req.id));
}

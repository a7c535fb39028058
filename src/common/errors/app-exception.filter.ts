import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { endpointOf, Reply, Request } from '../request';
import { RateLimitService } from '../../rate-limit/rate-limit.service';
import { writeRateLimitHeaders } from '../../rate-limit/rate-limit-state';
import { isDatabaseUnavailable } from '../../prisma/database-errors';
import { AppError } from './app-error';
import { ErrorCode } from './error-codes';

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

/**
 * Errors from Nest or Fastify (routing, body parsing) as AppErrors; an unreachable database is a
 * 503 (fast: the pool refuses or times out); anything else is a 500.
 */
export function toAppError(exception: unknown): AppError {
  if (exception instanceof AppError) return exception;
  if (isDatabaseUnavailable(exception)) return new AppError('service_unavailable').withRetryAfter(DATABASE_RETRY_AFTER_SECONDS);
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
 * The only place error bodies are written (PRODUCT.md §4). Requests that failed before the rate
 * limiter ran (unknown route, unparsable body) are counted per client IP here, so their answers
 * carry the rate-limit headers too.
 */
@Catch()
export class AppExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  constructor(private readonly rateLimits: RateLimitService) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const req = host.switchToHttp().getRequest<Request>();
    const reply = host.switchToHttp().getResponse<Reply>();
    let error = toAppError(exception);
    if (error.code === 'service_unavailable') {
      this.logger.warn(`${endpointOf(req)} answered 503: the database is unreachable [${req.id}]`);
    } else if (error.status >= 500) {
      this.logger.error(`${endpointOf(req)} failed [${req.id}]`, (exception as Error)?.stack);
    }
    if (req.rateLimit === null && req.url.startsWith('/api/')) {
      try {
        req.rateLimit = await this.rateLimits.hitAnonymous(req);
        writeRateLimitHeaders(reply, req.rateLimit);
        if (req.rateLimit.exceeded) error = new AppError('rate_limit_exceeded');
      } catch (err) {
        this.logger.warn(`Could not count ${req.id} against a rate limit: ${(err as Error).message}`);
      }
    }
    if (error.challenge !== undefined) reply.header('WWW-Authenticate', error.challenge);
    if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', error.retryAfterSeconds);
    reply.status(error.status).send({
      statusCode: error.status,
      error: error.code,
      message: error.message,
      requestId: req.id,
      ...(error.status === 400 ? { details: error.details ?? [] } : {}),
    });
  }
}

import type { Principal } from '../principal';
import { DEFAULT_MESSAGES, ERROR_STATUS, ErrorCode } from './error-codes';

export interface ErrorDetail {
  readonly field: string;
  readonly message: string;
}

/**
 * The one error type services throw; the exception filter turns it into the documented body.
 * It is a verdict (401, 403, 429…), not a fault, so it carries no stack trace: capturing one was
 * the main extra cost of a refused request over an allowed one (docs/BENCHMARKS.md).
 */
export class AppError extends Error {
  readonly status: number;
  /** WWW-Authenticate value for 401s (RFC 6750 §3). */
  challenge?: string;
  /** Retry-After for a 429 that is not the per-endpoint limiter's (e.g. the login lockout). */
  retryAfterSeconds?: number;
  /** A refused credential we still know the owner of (a revoked or expired key): usage counts it. */
  attributedTo?: Principal;

  constructor(
    readonly code: ErrorCode,
    message: string = DEFAULT_MESSAGES[code],
    readonly details?: readonly ErrorDetail[],
  ) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }

  withChallenge(challenge: string): this {
    this.challenge = challenge;
    return this;
  }

  attributeTo(principal: Principal): this {
    this.attributedTo = principal;
    return this;
  }

  withRetryAfter(seconds: number): this {
    this.retryAfterSeconds = Math.max(1, Math.ceil(seconds));
    return this;
  }
}

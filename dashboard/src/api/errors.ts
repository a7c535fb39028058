import type { components } from './schema';

export type ErrorBody = components['schemas']['ErrorResponseDto'];

/** An answer that is not a success, in the API's error body (docs/API.md, "Errors"). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorBody['error'] | 'network_error',
    message: string,
    readonly details: ErrorBody['details'] = [],
    /** Whole seconds, from Retry-After (429 only). */
    readonly retryAfter?: number,
    readonly requestId?: string,
  ) {
    super(message);
  }

  /** The message for a person, with the wait on a 429 and the field errors on a 400 (those the message does not say already). */
  describe(): string {
    if (this.code === 'rate_limit_exceeded' && this.retryAfter !== undefined)
      return `${this.message} Try again in ${formatWait(this.retryAfter)}.`;
    // A detail the message already says (a single-field refusal often is its own message) is not said twice.
    const more = (this.details ?? []).filter((d) => !this.message.includes(d.message));
    if (more.length > 0) return `${this.message} ${more.map((d) => `${d.field}: ${d.message}`).join('; ')}`;
    return this.message;
  }
}

export function formatWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && typeof (body as ErrorBody).error === 'string';
}

/** openapi-fetch's result as data, or an ApiError thrown. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  const { data, error, response } = result;
  if (response.ok) return data as T;
  const retry = response.headers.get('retry-after');
  if (isErrorBody(error)) {
    return throwError(
      new ApiError(response.status, error.error, error.message, error.details, retry ? Number(retry) : undefined, error.requestId),
    );
  }
  return throwError(new ApiError(response.status, 'internal_error', `The server answered ${response.status}.`));
}

function throwError(error: ApiError): never {
  throw error;
}

import type { AppError } from './app-error';
import { DEFAULT_MESSAGES, ERROR_STATUS, ErrorCode } from './error-codes';

export const ERROR_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The error body of docs/API.md, "Errors", as JSON text: `{statusCode, error, message, requestId}`, plus
 * `details` on a 400. Every error answer takes its body from here — the exception filter's, and the
 * raw one written to a socket the HTTP parser refused.
 *
 * An error with its code's default message and no details — every 429, most 401s — is its code's
 * head, serialised once, and the request id: under a flood of 429s, serialising the same message
 * for every answer cost more than the rest of the body (docs/PERFORMANCE.md, "A cheap 429").
 */
export function errorBody(error: AppError, requestId: string): string {
  if (error.details === undefined && error.status !== 400 && error.message === DEFAULT_MESSAGES[error.code]) {
    return `${bodyHeadOf(error.code)}${JSON.stringify(requestId)}}`;
  }
  return JSON.stringify({
    statusCode: error.status,
    error: error.code,
    message: error.message,
    requestId,
    ...(error.status === 400 ? { details: error.details ?? [] } : {}),
  });
}

/** `{"statusCode":…,"error":…,"message":…,"requestId":` of a code with its default message. */
const bodyHeads = new Map<ErrorCode, string>();
function bodyHeadOf(code: ErrorCode): string {
  let head = bodyHeads.get(code);
  if (head === undefined) {
    const whole = JSON.stringify({ statusCode: ERROR_STATUS[code], error: code, message: DEFAULT_MESSAGES[code], requestId: '' });
    bodyHeads.set(code, (head = whole.slice(0, whole.length - '""}'.length)));
  }
  return head;
}

/**
 * Every error code the API answers with, and its HTTP status (docs/API.md, "Errors").
 * When 408, 413, 415, 431 and 503 are answered: docs/DECISIONS.md, "Errors: 408, 413, 415, 431, 503".
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  missing_credentials: 401,
  invalid_api_key: 401,
  invalid_token: 401,
  token_expired: 401,
  invalid_credentials: 401,
  insufficient_permissions: 403,
  mfa_required: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  challenge_failed: 422,
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  request_header_fields_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  validation_failed: 'The request is malformed; see details.',
  missing_credentials: 'This endpoint needs credentials that the request did not carry.',
  invalid_api_key: 'The API key is unknown, revoked or expired.',
  invalid_token: 'The bearer token is not valid.',
  token_expired: 'The bearer token has expired; log in again via POST /api/v1/auth/login.',
  invalid_credentials: 'The email or password is wrong.',
  insufficient_permissions: 'The caller is not allowed to use this endpoint.',
  mfa_required: 'Your account requires a second factor: turn on an authenticator app (POST /api/v1/auth/mfa/totp) or add a passkey first.',
  not_found: 'No such resource.',
  request_timeout: 'The request did not arrive in time; send it again.',
  conflict: 'The request conflicts with the current state of the resource.',
  payload_too_large: 'The request body is too large.',
  unsupported_media_type: 'The request body must be JSON (Content-Type: application/json).',
  challenge_failed: 'The widget solution is wrong, expired, already used or not for this key; solve a new challenge.',
  idempotency_key_reused: 'This Idempotency-Key was already used with another nonce; use a new key for each nonce.',
  rate_limit_exceeded: 'Too many requests; retry after the number of seconds in Retry-After.',
  request_header_fields_too_large: 'The request headers are too large.',
  internal_error: 'Something went wrong on our side.',
  service_unavailable: 'The service is temporarily unavailable; retry shortly.',
};

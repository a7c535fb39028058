/** WWW-Authenticate values (RFC 6750 §3; docs/API.md, "Errors"). */
export const CHALLENGE = {
  apiKey: 'ApiKey header="X-Api-Key"',
  bearer: 'Bearer',
  invalidToken: 'Bearer error="invalid_token"',
  expiredToken: 'Bearer error="invalid_token", error_description="token_expired"',
} as const;

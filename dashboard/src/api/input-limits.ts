/**
 * The server's length caps of text fields, copied: sign-up and the e-mailed links come before any
 * answer the dashboard could read them from. src/dashboard/dashboard-input-limits.spec.ts fails when
 * they differ from the OpenAPI document's. The bounds of numeric settings are not copied: they come
 * with GET /auth/me (`limits`).
 */
export const INPUT_LIMITS = {
  password: { min: 12, max: 256 },
  email: { max: 254 },
  /** Names of accounts and API keys. */
  name: { max: 100 },
} as const;

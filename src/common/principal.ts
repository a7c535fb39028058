export const ROLES = ['OWNER', 'ADMIN', 'DEVELOPER', 'ANALYST'] as const;
export type Role = (typeof ROLES)[number];

export const API_KEY_SCOPES = ['widget', 'verify', 'public'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Who made the request, as established by one of the two authentication methods. */
export type Principal = ApiKeyPrincipal | UserPrincipal;

export interface ApiKeyPrincipal {
  readonly kind: 'apiKey';
  readonly keyId: string;
  readonly accountId: string;
  readonly scopes: readonly ApiKeyScope[];
  readonly allowedOrigins: readonly string[];
  /** The key's own widget challenge difficulty (a visitor's median wait, ms); null: its plan's. */
  readonly challengeWaitMs: number | null;
  /** A test key's fixed verify verdict; null for every real key (docs/API.md, "Test keys"). */
  readonly testVerdict: TestVerdict | null;
}

/** What a test key's verify always answers (docs/API.md, "Test keys"). */
export const TEST_VERDICTS = ['valid', 'unknown', 'expired', 'already_used', 'unavailable'] as const;
export type TestVerdict = (typeof TEST_VERDICTS)[number];

export interface UserPrincipal {
  readonly kind: 'user';
  readonly userId: string;
  readonly email: string;
  readonly accountId: string;
  readonly role: Role;
  /** The account requires a second factor and this user has none: only routes for enrolling answer (403 `mfa_required`). */
  readonly mustEnrolMfa?: true;
}

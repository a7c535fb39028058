import { randomBytes } from 'node:crypto';

/**
 * The browser's session cookie (docs/DECISIONS.md, "The dashboard's session cookie"): an opaque secret
 * naming a Session row, sent only to the sign-in routes (`/api/v1/auth/login…`), where the dashboard
 * exchanges it for short-lived tokens and a new sign-in replaces the session it names. Written by
 * hand: one cookie of fixed attributes and a base64url value needs no escaping, and reading it back is
 * finding one name in one header.
 */
export const SESSION_COOKIE = 'gatehouse_session';
export const SESSION_COOKIE_PATH = '/api/v1/auth/login';

/** The header a page must send to exchange the cookie: a cross-site form or image cannot set it. */
export const SESSION_EXCHANGE_HEADER = 'x-gatehouse-session';

/** Lifetime of a token obtained through the cookie (POST /api/v1/auth/login/session), at most the session's remaining time. */
export const SESSION_TOKEN_SECONDS = 300;

/** Where a started session hands its cookie secret to the sign-in route's interceptor; not serialised (a symbol key). */
export const SESSION_SECRET = Symbol('session secret');

export interface StartedSession {
  readonly secret: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly expiresAt: Date;
}

/** 32 random bytes; `ghs_` makes it recognisable to secret scanners, like the other tokens. */
export const newSessionSecret = (): string => `ghs_${randomBytes(32).toString('base64url')}`;

function attributes(maxAgeSeconds: number, secure: boolean): string {
  return `Path=${SESSION_COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export const sessionCookie = (secret: string, maxAgeSeconds: number, secure: boolean): string =>
  `${SESSION_COOKIE}=${secret}; ${attributes(maxAgeSeconds, secure)}`;

export const clearedSessionCookie = (secure: boolean): string => `${SESSION_COOKIE}=; ${attributes(0, secure)}`;

/** The session cookie's value in a Cookie header, if it has a well-formed one. */
export function sessionSecretOf(cookieHeader: string | undefined): string | undefined {
  if (cookieHeader === undefined) return undefined;
  for (const pair of cookieHeader.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === SESSION_COOKIE) {
      const value = pair.slice(at + 1).trim();
      if (/^ghs_[A-Za-z0-9_-]{43}$/.test(value)) return value;
    }
  }
  return undefined;
}

import { CHALLENGE } from './challenges';

/** RFC 7235 §2.1: auth-scheme [ 1*SP auth-param *( OWS "," OWS auth-param ) ], params as token=quoted-string here. */
const AUTH_CHALLENGE = /^([A-Za-z][A-Za-z0-9-]*)(?: ([A-Za-z_]+="[^"\\]*"(?:, [A-Za-z_]+="[^"\\]*")*))?$/;

const paramsOf = (value: string): Record<string, string> =>
  Object.fromEntries([...value.matchAll(/([A-Za-z_]+)="([^"]*)"/g)].map(([, name, v]) => [name, v]));

describe('WWW-Authenticate values', () => {
  it('are each one well-formed challenge a client library can parse', () => {
    for (const value of Object.values(CHALLENGE)) expect(value).toMatch(AUTH_CHALLENGE);
  });

  it('name the X-Api-Key header for API-key routes', () => {
    expect(AUTH_CHALLENGE.exec(CHALLENGE.apiKey)?.[1]).toBe('ApiKey');
    expect(paramsOf(CHALLENGE.apiKey)).toEqual({ header: 'X-Api-Key' });
  });

  it('use the Bearer scheme, and for a bad or expired token the RFC 6750 error invalid_token', () => {
    expect(CHALLENGE.bearer).toBe('Bearer');
    expect(paramsOf(CHALLENGE.invalidToken)).toEqual({ error: 'invalid_token' });
    expect(paramsOf(CHALLENGE.expiredToken)).toEqual({ error: 'invalid_token', error_description: 'token_expired' });
    for (const value of [CHALLENGE.invalidToken, CHALLENGE.expiredToken]) expect(AUTH_CHALLENGE.exec(value)?.[1]).toBe('Bearer');
  });
});

import { cookieSecure, sessionSecretOf } from './session-cookie';

describe('session cookie', () => {
  it('is Secure except on plain-http localhost or 127.0.0.1', () => {
    expect(cookieSecure('http://localhost:3000')).toBe(false);
    expect(cookieSecure('http://127.0.0.1:8080')).toBe(false);
    expect(cookieSecure('https://localhost:3000')).toBe(true);
    expect(cookieSecure('https://gatehouse.example.com')).toBe(true);
    expect(cookieSecure('http://gatehouse.example.com')).toBe(true);
    expect(cookieSecure('http://localhost.example.com')).toBe(true);
  });

  it('is read from a Cookie header by its exact name, only when well-formed', () => {
    const secret = `ghs_${'a'.repeat(43)}`;
    expect(sessionSecretOf(`a=1; gatehouse_session=${secret}; b=2`)).toBe(secret);
    expect(sessionSecretOf(`xgatehouse_session=${secret}`)).toBeUndefined();
    expect(sessionSecretOf('gatehouse_session=ghs_short')).toBeUndefined();
    expect(sessionSecretOf(undefined)).toBeUndefined();
  });
});

import { sessionSecretOf } from './session-cookie';

describe('session cookie', () => {
  it('is read from a Cookie header by its exact name, only when well-formed', () => {
    const secret = `ghs_${'a'.repeat(43)}`;
    expect(sessionSecretOf(`a=1; gatehouse_session=${secret}; b=2`)).toBe(secret);
    expect(sessionSecretOf(`xgatehouse_session=${secret}`)).toBeUndefined();
    expect(sessionSecretOf('gatehouse_session=ghs_short')).toBeUndefined();
    expect(sessionSecretOf(undefined)).toBeUndefined();
  });
});

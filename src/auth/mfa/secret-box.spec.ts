import { SecretBox } from './secret-box';
import { newRecoveryCodes, normalizeRecoveryCode, RECOVERY_CODE_COUNT } from './recovery-codes';

describe('SecretBox', () => {
  const box = new SecretBox('an operator key of at least thirty-two bytes');

  it('opens what it sealed, for the same context only', () => {
    const sealed = box.seal('JBSWY3DPEHPK3PXP', 'user-1');
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.open(sealed, 'user-1')).toBe('JBSWY3DPEHPK3PXP');
    expect(box.open(sealed, 'user-2')).toBeUndefined();
  });

  it('seals the same secret differently each time, and refuses an altered or foreign value', () => {
    const a = box.seal('secret', 'u');
    expect(box.seal('secret', 'u')).not.toBe(a);
    const [v, iv, tag, ct] = a.split('.');
    const flipped = Buffer.from(ct, 'base64url');
    flipped[0] ^= 1;
    expect(box.open([v, iv, tag, flipped.toString('base64url')].join('.'), 'u')).toBeUndefined();
    expect(new SecretBox('another operator key, also thirty-two bytes').open(a, 'u')).toBeUndefined();
    expect(box.open('garbage', 'u')).toBeUndefined();
  });

  it('hashes under its key', () => {
    expect(box.hash('abc')).toBe(box.hash('abc'));
    expect(new SecretBox('another operator key, also thirty-two bytes').hash('abc')).not.toBe(box.hash('abc'));
  });
});

describe('recovery codes', () => {
  it('are ten distinct codes that read back as typed in any case, with or without the dash', () => {
    const codes = newRecoveryCodes();
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of codes) {
      expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
      expect(normalizeRecoveryCode(code.toUpperCase())).toBe(code.replace('-', ''));
      expect(normalizeRecoveryCode(` ${code.replace('-', ' ')} `)).toBe(code.replace('-', ''));
    }
    expect(normalizeRecoveryCode('123456')).toBeUndefined();
    expect(normalizeRecoveryCode('abcde-fghij-k')).toBeUndefined();
  });
});

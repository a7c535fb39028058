import { normalizeEmail } from './email';

describe('normalizeEmail', () => {
  it('trims and lower-cases, so an address finds its user however it is typed', () => {
    expect(normalizeEmail('  Ann.Lee@Example.COM\t')).toBe('ann.lee@example.com');
  });

  it('is idempotent: a stored address normalises to itself', () => {
    const once = normalizeEmail(' Bob@X.io ');
    expect(normalizeEmail(once)).toBe(once);
  });

  it('keeps what is inside the address (dots, plus tags)', () => {
    expect(normalizeEmail('a.b+tag@example.com')).toBe('a.b+tag@example.com');
  });
});

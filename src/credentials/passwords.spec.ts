import { availableParallelism } from 'node:os';
import { argon2i, argon2id, hash as argon2Hash } from 'argon2';
import { hashIsOutdated, hashPassword, verifyLogin, verifyPassword } from './passwords';

describe('hashPassword', () => {
  it('produces an argon2id hash with the OWASP parameters', async () => {
    const hash = await hashPassword('correct horse battery staple');
    const [, type, version, params] = hash.split('$');
    expect([type, version]).toEqual(['argon2id', 'v=19']);
    expect(params.split(',').sort()).toEqual(['m=7168', 'p=1', 't=5']);
    expect(hash).not.toContain('correct horse');
  });

  it('salts every hash, so equal passwords hash differently', async () => {
    expect(await hashPassword('same password')).not.toBe(await hashPassword('same password'));
  });
});

describe('verifyPassword', () => {
  let hash: string;

  beforeAll(async () => {
    hash = await hashPassword('correct horse battery staple');
  });

  it('accepts the right password', async () => {
    expect(await verifyPassword(hash, 'correct horse battery staple')).toBe(true);
  });

  it('refuses a wrong or nearly right password', async () => {
    expect(await verifyPassword(hash, 'wrong')).toBe(false);
    expect(await verifyPassword(hash, 'correct horse battery staple ')).toBe(false);
    expect(await verifyPassword(hash, 'Correct horse battery staple')).toBe(false);
  });

  it('answers every one of many concurrent verifies correctly (they queue for a hashing slot)', async () => {
    const attempts = Array.from({ length: 8 }, (_, i) => (i % 2 ? 'wrong password' : 'correct horse battery staple'));
    expect(await Promise.all(attempts.map((p) => verifyPassword(hash, p)))).toEqual(attempts.map((p) => p !== 'wrong password'));
  });

  it("refuses every password for an unknown user, even the dummy hash's own", async () => {
    expect(await verifyPassword(null, 'no user has this password')).toBe(false);
    expect(await verifyPassword(null, 'correct horse battery staple')).toBe(false);
    expect(await verifyPassword(null, '')).toBe(false);
  });
});

describe('verifyLogin', () => {
  let hash: string;

  beforeAll(async () => {
    hash = await hashPassword('correct horse battery staple');
  });

  it('answers the user found when the password is theirs, and not verified otherwise', async () => {
    const user = { id: 'u1', passwordHash: hash };
    expect(await verifyLogin(() => Promise.resolve(user), 'correct horse battery staple')).toEqual({ user, verified: true });
    expect(await verifyLogin(() => Promise.resolve(user), 'wrong password')).toEqual({ user, verified: false });
  });

  it('verifies nobody for an unknown email or a user without a password, whatever the password', async () => {
    expect(await verifyLogin(() => Promise.resolve(null), 'no user has this password')).toEqual({ user: null, verified: false });
    const invited = { id: 'u2', passwordHash: null };
    expect(await verifyLogin(() => Promise.resolve(invited), 'no user has this password')).toEqual({ user: invited, verified: false });
  });

  it('looks a user up only once a hashing slot is free, so a burst of logins does not query the database at once', async () => {
    const slots = Math.max(1, Math.floor(availableParallelism() / 2));
    let started = 0;
    let finished = 0;
    let mostInSlots = 0;
    const find = () => {
      started++;
      mostInSlots = Math.max(mostInSlots, started - finished);
      return Promise.resolve({ passwordHash: hash });
    };
    const logins = Array.from({ length: slots * 2 + 1 }, () => verifyLogin(find, 'correct horse battery staple').finally(() => finished++));
    const results = await Promise.all(logins);
    expect(results.every((r) => r.verified)).toBe(true);
    expect(started).toBe(logins.length);
    expect(mostInSlots).toBe(slots);
  });
});

describe('a hash made with other argon2 parameters', () => {
  const password = 'correct horse battery staple';
  let old: string;

  beforeAll(async () => {
    old = await argon2Hash(password, { type: argon2id, memoryCost: 65_536, timeCost: 3, parallelism: 4 });
  });

  it('is outdated, as is an argon2i hash; a hash made now is not', async () => {
    expect(hashIsOutdated(old)).toBe(true);
    expect(hashIsOutdated(await argon2Hash(password, { type: argon2i, memoryCost: 7168, timeCost: 5, parallelism: 1 }))).toBe(true);
    expect(hashIsOutdated(await hashPassword(password))).toBe(false);
  });

  it('still verifies, and a right password comes back hashed anew with the current parameters', async () => {
    const user = { passwordHash: old };
    const right = await verifyLogin(() => Promise.resolve(user), password);
    expect(right).toEqual({ user, verified: true, rehashed: expect.any(String) });
    expect(hashIsOutdated(right.rehashed!)).toBe(false);
    expect(await verifyPassword(right.rehashed!, password)).toBe(true);
  });

  it('is not hashed anew for a wrong password, nor is a current hash for the right one', async () => {
    expect(await verifyLogin(() => Promise.resolve({ passwordHash: old }), 'wrong password')).not.toHaveProperty('rehashed');
    const current = { passwordHash: await hashPassword(password) };
    expect(await verifyLogin(() => Promise.resolve(current), password)).toEqual({ user: current, verified: true });
  });
});

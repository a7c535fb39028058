import { argon2id, hash, verify } from 'argon2';

/** OWASP Password Storage Cheat Sheet: argon2id, m=19 MiB, t=2, p=1. */
const OPTIONS = { type: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies against `passwordHash`, or against a hash of nothing when there is no user, so an
 * unknown email costs the same time as a wrong password.
 */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  dummyHash ??= hashPassword('no user has this password');
  const ok = await verify(passwordHash ?? (await dummyHash), password);
  return passwordHash !== null && ok;
}

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

export const PASSWORD_MIN = 12;
/** argon2 hashes any length; the bound keeps a login from hashing megabytes. */
export const PASSWORD_MAX = 256;

/** Problems with a new password, as error details (empty when it is acceptable). */
export function passwordProblems(password: string, email: string, field: string): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  if (password.length < PASSWORD_MIN) problems.push({ field, message: `${field} must be at least ${PASSWORD_MIN} characters` });
  if (password.length > PASSWORD_MAX) problems.push({ field, message: `${field} must be at most ${PASSWORD_MAX} characters` });
  const lower = password.toLowerCase();
  const [local] = email.toLowerCase().split('@');
  if (lower.includes(email.toLowerCase()) || (local !== undefined && local.length >= 4 && lower === local)) {
    problems.push({ field, message: `${field} must not be or contain the email address` });
  }
  return problems;
}

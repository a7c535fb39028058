import { availableParallelism } from 'node:os';
import { argon2id, hash, needsRehash, verify } from 'argon2';

/**
 * argon2id, m=7 MiB, t=5, p=1: of the settings the OWASP Password Storage Cheat Sheet gives as equal
 * in defence, the one with the least memory. Every libuv thread that hashes keeps its block in its
 * malloc arena after the hash (docs/DECISIONS.md, "Password hashing").
 */
const OPTIONS = { type: argon2id, memoryCost: 7168, timeCost: 5, parallelism: 1 } as const;

/**
 * argon2 runs on libuv's pool (4 threads), each computation ~15–20 ms of one core. Left alone, a
 * login flood would run four at once and take every core from the event loop. So at most half
 * the cores hash at a time, each slot hashes at most a fifth of the time (after a hash, the
 * slot rests four times as long), and further logins queue: about 10 logins a second per slot,
 * plenty for a dashboard, while other requests keep their latency (docs/BENCHMARKS.md, login flood).
 */
const MAX_CONCURRENT_HASHES = Math.max(1, Math.floor(availableParallelism() / 2));
const HASH_DUTY_CYCLE = 0.2;
let hashing = 0;
const queued: Array<() => void> = [];

function releaseHashSlot(): void {
  const next = queued.shift();
  if (next)
    next(); // the slot is handed over, not re-counted
  else hashing--;
}

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (hashing < MAX_CONCURRENT_HASHES) hashing++;
  else await new Promise<void>((resolve) => queued.push(resolve));
  const started = performance.now();
  try {
    return await work();
  } finally {
    const rest = (performance.now() - started) * (1 / HASH_DUTY_CYCLE - 1);
    setTimeout(releaseHashSlot, rest);
  }
}

export function hashPassword(password: string): Promise<string> {
  return withHashSlot(() => hash(password, OPTIONS));
}

let dummyHash: Promise<string> | undefined;

/** Whether `passwordHash` was made otherwise than hashPassword makes hashes now (argon2 writes its parameters into the hash). */
export function hashIsOutdated(passwordHash: string): boolean {
  return !passwordHash.startsWith('$argon2id$') || needsRehash(passwordHash, OPTIONS);
}

/**
 * A login: `find` looks the user up and the password is verified against their hash, both in one
 * hashing slot, so a burst of logins queues before its database look-ups too (each ~2 ms of the
 * event loop's CPU on PostgreSQL; 16 at once stalled API-key requests; docs/PERFORMANCE.md, "JWT requests and logins"). With no
 * user (or one without a password) it verifies against a hash of nothing, so an unknown email costs
 * what a wrong password does. When the password is right but its hash was made with other
 * parameters, `rehashed` is a new hash of it, made in the same slot: the caller stores it, so only
 * that one login pays for a second hash.
 */
export async function verifyLogin<U extends { passwordHash: string | null }>(
  find: () => Promise<U | null>,
  password: string,
): Promise<{ user: U | null; verified: boolean; rehashed?: string }> {
  const nothing = await (dummyHash ??= hashPassword('no user has this password')); // outside the slot: computing it takes a slot
  return withHashSlot(async () => {
    const user = await find();
    const stored = user?.passwordHash ?? null;
    const ok = await verify(stored ?? nothing, password);
    if (!ok || stored === null) return { user, verified: false };
    if (!hashIsOutdated(stored)) return { user, verified: true };
    return { user, verified: true, rehashed: await hash(password, OPTIONS) };
  });
}

/** Verifies against `passwordHash`, or, when it is null, as for an unknown user (see verifyLogin). */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  return (await verifyLogin(() => Promise.resolve({ passwordHash }), password)).verified;
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

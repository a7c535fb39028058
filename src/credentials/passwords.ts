import { availableParallelism } from 'node:os';
import { argon2id, hash, verify } from 'argon2';

/** OWASP Password Storage Cheat Sheet: argon2id, m=19 MiB, t=2, p=1. */
const OPTIONS = { type: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * argon2 runs on libuv's pool (4 threads), each computation ~30 ms of one core. Left alone, a
 * login flood would run four at once and take every core from the event loop. So at most half
 * the cores hash at a time, each slot hashes at most a fifth of the time (after a hash, the
 * slot rests four times as long), and further logins queue: about 6 logins a second per slot,
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

/**
 * A login: `find` looks the user up and the password is verified against their hash, both in one
 * hashing slot, so a burst of logins queues before its database look-ups too (each ~2 ms of the
 * event loop's CPU on PostgreSQL; 16 at once stalled API-key requests; docs/PERFORMANCE.md, "JWT requests and logins"). With no
 * user (or one without a password) it verifies against a hash of nothing, so an unknown email costs
 * what a wrong password does.
 */
export async function verifyLogin<U extends { passwordHash: string | null }>(
  find: () => Promise<U | null>,
  password: string,
): Promise<{ user: U | null; verified: boolean }> {
  const nothing = await (dummyHash ??= hashPassword('no user has this password')); // outside the slot: computing it takes a slot
  return withHashSlot(async () => {
    const user = await find();
    const ok = await verify(user?.passwordHash ?? nothing, password);
    return { user, verified: ok && user !== null && user.passwordHash !== null };
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

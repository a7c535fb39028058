import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /** How long to keep trying, in ms. */
  readonly timeoutMs?: number;
  /** The pause between two tries, in ms. */
  readonly intervalMs?: number;
}

/**
 * Tries `check` until it passes — returns anything but `false` without throwing — and returns what
 * it returned. `check` is a condition (`() => res.status === 401`) or an assertion
 * (`() => expect(res.status).toBe(401)`), for a state the app reaches in its own time: a change
 * seen through Redis, a server draining, a log line written. After `timeoutMs` the last try's
 * failure is thrown: the assertion's own message, or for a condition that it was still false.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 5_000, intervalMs = 100 }: EventuallyOptions = {},
): Promise<Exclude<T, false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let failure: unknown;
    try {
      const result = await check();
      if (result !== false) return result as Exclude<T, false>;
      failure = new Error(`eventually: the condition was still false after ${timeoutMs} ms`);
    } catch (err) {
      failure = err;
    }
    if (Date.now() >= deadline) throw failure;
    await sleep(intervalMs);
  }
}

/** The times of a challenge (docs/API.md, "Challenges"): when it runs out (s) and when it was issued (ms), by the API's clock. */
interface ChallengeTimes {
  readonly parameters?: { readonly expiresAt?: unknown; readonly data?: { readonly issuedAt?: unknown } };
}

/**
 * Gatehouse's clock, read off a challenge body it issued, taken as read at `localAt` (this browser's
 * ms, halfway through the request): its offset from this browser's clock and the challenge's end by
 * it, in ms; undefined for a body without those times. Used by the widget and the dashboard's sign-up.
 */
export function challengeClock(body: unknown, localAt: number): { offset: number; expiresAt: number } | undefined {
  const p = (body as ChallengeTimes | undefined)?.parameters;
  if (typeof p?.expiresAt !== 'number' || typeof p.data?.issuedAt !== 'number') return undefined;
  return { offset: p.data.issuedAt - localAt, expiresAt: p.expiresAt * 1000 };
}

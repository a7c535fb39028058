/**
 * Solve times per key (the dashboard's key page, GET /api/v1/analytics/widget/effort): the time
 * from issuing a challenge to the exchange of its solution, counted per minute in buckets with
 * these upper bounds (ms) as usage rows `widget:solve_ms:<bound>` — the usage table's buckets,
 * writes and retention, no table of its own. A median or p90 read off them is within a bucket's
 * width (about ±20 %).
 */
export const SOLVE_BOUNDS_MS = [
  50, 75, 100, 150, 200, 250, 300, 400, 500, 600, 750, 1000, 1250, 1500, 2000, 2500, 3000, 4000, 5000, 7500, 10_000, 15_000, 20_000, 30_000,
  60_000, 300_000,
] as const;

export const SOLVE_PREFIX = 'solve_ms:';
/** A challenge issued raised by a surge. */
export const SURGED = 'challenge_surged';

/** The tally name of a solve time: its bucket's upper bound. */
export function solveBucket(ms: number): string {
  return SOLVE_PREFIX + (SOLVE_BOUNDS_MS.find((b) => ms <= b) ?? SOLVE_BOUNDS_MS[SOLVE_BOUNDS_MS.length - 1]);
}

/**
 * The q-quantile (0–1) of counts per upper bound, interpolated within its bucket (from the bound
 * below); null with no counts.
 */
export function quantile(counts: ReadonlyMap<number, number>, q: number): number | null {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  let lower = 0;
  for (const bound of SOLVE_BOUNDS_MS) {
    const n = counts.get(bound) ?? 0;
    if (n > 0 && seen + n >= rank) return Math.round(lower + ((rank - seen) / n) * (bound - lower));
    seen += n;
    lower = bound;
  }
  return SOLVE_BOUNDS_MS[SOLVE_BOUNDS_MS.length - 1];
}

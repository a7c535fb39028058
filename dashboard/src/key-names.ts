import { INPUT_LIMITS } from './api/input-limits';

/** `text` cut to `max` characters (code points), its end replaced by "…" when it was longer. */
function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * A name for a key the dashboard makes itself: `base`, or `base (2)`, `base (3)`… — the first that no
 * active key of the account is named (names are unique among them) — within the API's 100 characters
 * (a long site address is cut, "…", before its number).
 */
export function freeKeyName(base: string, taken: readonly string[]): string {
  const names = new Set(taken);
  const max = INPUT_LIMITS.name.max;
  const first = cut(base, max);
  if (!names.has(first)) return first;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const name = cut(base, max - suffix.length) + suffix;
    if (!names.has(name)) return name;
  }
}

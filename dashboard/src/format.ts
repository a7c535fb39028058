/** A moment as people read it, in their locale and time zone; `never` stands for none. */
export function formatDate(iso: string | null | undefined, never = '—'): string {
  if (!iso) return never;
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A day as people read it (no time): for dates where the hour says nothing, as when a key was made. */
export function formatDay(iso: string | null | undefined, never = '—'): string {
  if (!iso) return never;
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
}

/** A moment to the second, for what happens seconds apart (a webhook's attempts). */
export function formatMoment(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

import { LRUCache } from 'lru-cache';

const MINUTE_MS = 60_000;

/** Weight of the last whole minute in a subject's usual rate (an exponentially weighted mean). */
const ALPHA = 0.25;
/** A surge this many times the usual rate doubles the work; every further doubling doubles it again. */
const FIRST_STEP = 4;
/** A surging minute enters the usual rate as at most this many times it, so a lasting attack becomes "usual" only slowly. */
const MAX_GROWTH = 2;
/** At most 2^MAX_LEVEL times the work (×16). */
export const MAX_LEVEL = 4;

interface Meter {
  /** Start of the current minute. */
  minute: number;
  count: number;
  previousCount: number;
  /** Usual requests per minute, from the minutes before the current one. */
  usual: number;
}

export interface SurgeOptions {
  /** The usual rate is taken to be at least this many per minute, so a quiet subject is not raised by a handful. */
  readonly floorPerMinute: number;
  /** Subjects remembered (least recently seen forgotten first). */
  readonly max: number;
}

/**
 * How far above its usual rate a subject (a key, a visitor) is asking right now (docs/API.md,
 * "Challenge difficulty"): each `hit` counts one request and answers a level from 0 to MAX_LEVEL.
 *
 * - The current rate is a sliding minute: this minute's count plus the last minute's, weighted by
 *   how much of it still lies within 60 s.
 * - The usual rate is an exponentially weighted mean of whole minutes (ALPHA = 0.25, so about the
 *   last four minutes), never below `floorPerMinute`. A surging minute enters it clipped to
 *   MAX_GROWTH × usual, so the usual rate grows at most 25% a minute: an attack becomes "usual"
 *   only after a quarter of an hour or so, a real rise in traffic eventually does.
 * - Level = 0 below FIRST_STEP × usual; then 1 + ⌊log2(rate / (FIRST_STEP × usual))⌋, at most
 *   MAX_LEVEL: ×2 work at 4× the usual rate, ×4 at 8×, ×8 at 16×, ×16 at 32× and beyond.
 *   When the surge stops, the sliding minute empties within 60 s and the level falls with it.
 *
 * Per process: behind a load balancer every instance sees the same share of a subject's requests,
 * so the ratio — and the level — is the same on each.
 */
export class SurgeMeter {
  private readonly meters: LRUCache<string, Meter>;

  constructor(
    private readonly options: SurgeOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.meters = new LRUCache({ max: options.max });
  }

  hit(subject: string): number {
    const now = this.now();
    const minute = now - (now % MINUTE_MS);
    let m = this.meters.get(subject);
    if (m === undefined) {
      m = { minute, count: 0, previousCount: 0, usual: this.options.floorPerMinute };
      this.meters.set(subject, m);
    }
    this.roll(m, minute);
    m.count += 1;
    const rate = m.count + m.previousCount * (1 - (now - minute) / MINUTE_MS);
    const threshold = FIRST_STEP * m.usual;
    return rate < threshold ? 0 : Math.min(MAX_LEVEL, 1 + Math.floor(Math.log2(rate / threshold)));
  }

  /** Moves the meter to `minute`, folding every minute that ended into the usual rate. */
  private roll(m: Meter, minute: number): void {
    if (m.minute === minute) return;
    const ended = Math.round((minute - m.minute) / MINUTE_MS);
    const floor = this.options.floorPerMinute;
    let usual = Math.max(floor, ALPHA * Math.min(m.count, MAX_GROWTH * m.usual) + (1 - ALPHA) * m.usual);
    // The minutes after it, if any, had no requests at all.
    for (let i = 1; i < Math.min(ended, 32); i++) usual = Math.max(floor, (1 - ALPHA) * usual);
    m.usual = usual;
    m.previousCount = ended === 1 ? m.count : 0;
    m.count = 0;
    m.minute = minute;
  }
}

import { nextAttemptAt } from './webhook-events';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const now = new Date('2026-03-01T12:00:00.000Z');

describe('the retry schedule of a delivery', () => {
  /** How long after a failed attempt the next is due, or null: none. */
  const waitAfter = (attemptsMade: number): number | null => {
    const at = nextAttemptAt(attemptsMade, now);
    return at === null ? null : at.getTime() - now.getTime();
  };

  it('tries again 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after the 1st to 7th failed attempts', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(waitAfter)).toEqual([5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);
  });

  it('has no attempt after the 8th: the delivery has failed, about 27.5 hours after the first', () => {
    expect(waitAfter(8)).toBeNull();
    expect(waitAfter(9)).toBeNull();
    const span = [1, 2, 3, 4, 5, 6, 7].reduce((sum, n) => sum + waitAfter(n)!, 0);
    expect(span).toBeGreaterThan(27 * HOUR);
    expect(span).toBeLessThan(28 * HOUR);
  });

  it('has none before a first attempt either', () => {
    expect(waitAfter(0)).toBeNull();
  });
});

import { expiryNoticeAt, nextAttemptAt } from './webhook-events';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
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

describe('the api_key.expiring notice due', () => {
  const expiringIn = (ms: number) => expiryNoticeAt(new Date(now.getTime() + ms), now);

  it('is none more than 7 days ahead, nor once the key has expired', () => {
    expect(expiringIn(7 * DAY + 1)).toBeNull();
    expect(expiringIn(30 * DAY)).toBeNull();
    expect(expiringIn(0)).toBeNull();
    expect(expiringIn(-HOUR)).toBeNull();
  });

  it('is the week’s notice within 7 days, saying 7 on the check after a key comes within the week', () => {
    expect(expiringIn(7 * DAY)).toEqual({ notice: 7, daysLeft: 7 });
    expect(expiringIn(7 * DAY - 15 * MINUTE)).toEqual({ notice: 7, daysLeft: 7 });
  });

  it('says the days really left for a key made with less than a week: 3 for 3 days, 2 for 25 hours', () => {
    expect(expiringIn(3 * DAY - SECOND)).toEqual({ notice: 7, daysLeft: 3 });
    expect(expiringIn(25 * HOUR)).toEqual({ notice: 7, daysLeft: 2 });
  });

  it('is the last day’s notice within a day, saying 1', () => {
    expect(expiringIn(DAY)).toEqual({ notice: 1, daysLeft: 1 });
    expect(expiringIn(12 * HOUR)).toEqual({ notice: 1, daysLeft: 1 });
    expect(expiringIn(MINUTE)).toEqual({ notice: 1, daysLeft: 1 });
  });
});

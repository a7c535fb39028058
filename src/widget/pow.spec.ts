import { DEFAULT_WAIT_MS, MAX_COUNTER, VISITOR_MS_PER_CANDIDATE, WAIT_LEVELS, expectedSolveMs, maxCounter } from './pow';
import { MAX_LEVEL } from './surge';

describe('challenge difficulty', () => {
  it('has four visitor waits, 500 ms the default, each a larger maximum counter than the one before', () => {
    expect(WAIT_LEVELS).toEqual([250, 500, 1000, 2000]);
    expect(DEFAULT_WAIT_MS).toBe(500);
    const maxima = WAIT_LEVELS.map((w) => maxCounter(w, 0));
    expect(maxima).toEqual(WAIT_LEVELS.map((w) => MAX_COUNTER[w]));
    expect(maxima.every((max, i) => Number.isInteger(max) && max > (maxima[i - 1] ?? 0))).toBe(true);
  });

  it('doubles the maximum per surge level, up to ×16 at the highest', () => {
    for (const wait of WAIT_LEVELS) {
      const levels = Array.from({ length: MAX_LEVEL + 1 }, (_, surge) => maxCounter(wait, surge));
      expect(levels).toEqual([1, 2, 4, 8, 16].map((f) => f * MAX_COUNTER[wait]));
    }
    expect(MAX_LEVEL).toBe(4);
  });

  it('keeps a visitor’s median compute (half the maximum tried) within the wait it is named for', () => {
    for (const wait of WAIT_LEVELS) {
      const medianComputeMs = (maxCounter(wait, 0) / 2 + 1) * VISITOR_MS_PER_CANDIDATE;
      expect({ wait, fits: medianComputeMs <= wait }).toEqual({ wait, fits: true });
    }
  });

  it('tells the expected solve time of a challenge from its solution: counter + 1 candidates, in whole ms', () => {
    expect(expectedSolveMs(0)).toBe(Math.round(VISITOR_MS_PER_CANDIDATE));
    expect(expectedSolveMs(999)).toBe(Math.round(1000 * VISITOR_MS_PER_CANDIDATE));
    for (const counter of [0, 1, 850, 1700, 21_000 * 16]) {
      const ms = expectedSolveMs(counter);
      expect(Number.isInteger(ms) && ms >= 0).toBe(true);
      expect(ms).toBeLessThanOrEqual(expectedSolveMs(counter + 1000));
    }
  });
});

import { quantile, solveBucket } from './solve-times';

describe('solve-time buckets', () => {
  it('put a time in the first bucket that holds it, the last for anything longer', () => {
    expect(solveBucket(0)).toBe('solve_ms:50');
    expect(solveBucket(50)).toBe('solve_ms:50');
    expect(solveBucket(51)).toBe('solve_ms:75');
    expect(solveBucket(480)).toBe('solve_ms:500');
    expect(solveBucket(10 * 60_000)).toBe('solve_ms:300000');
  });

  it('read a median and p90 within the bucket', () => {
    // 10 solves: 5 in (400, 500], 4 in (500, 600], 1 in (1500, 2000].
    const counts = new Map([
      [500, 5],
      [600, 4],
      [2000, 1],
    ]);
    expect(quantile(counts, 0.5)).toBe(500);
    expect(quantile(counts, 0.9)).toBe(600);
    expect(quantile(counts, 0.95)).toBe(1750);
    expect(quantile(new Map(), 0.5)).toBeNull();
  });
});

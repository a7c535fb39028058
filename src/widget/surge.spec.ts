import { MAX_LEVEL, SurgeMeter } from './surge';

describe('SurgeMeter', () => {
  let now: number;
  const meter = () => new SurgeMeter({ floorPerMinute: 10, max: 100 }, () => now);
  const hits = (m: SurgeMeter, subject: string, n: number, spreadMs: number): number => {
    let level = 0;
    for (let i = 0; i < n; i++) {
      level = m.hit(subject);
      now += spreadMs / n;
    }
    return level;
  };

  beforeEach(() => {
    now = Date.UTC(2026, 0, 1);
  });

  it('stays at level 0 at the usual rate, however long it lasts', () => {
    const m = meter();
    for (let minute = 0; minute < 30; minute++) expect(hits(m, 'key', 20, 60_000)).toBe(0);
  });

  it('raises the level with a surge far above the usual rate, step by step, up to the cap', () => {
    const m = meter();
    for (let minute = 0; minute < 10; minute++) hits(m, 'key', 10, 60_000); // usual: 10 a minute
    // The sliding minute holds the last minute's 10 too.
    expect(hits(m, 'key', 29, 1000)).toBe(0); // 39 a minute: under 4× usual
    expect(hits(m, 'key', 2, 100)).toBe(1); // 41: 4× usual
    expect(hits(m, 'key', 40, 1000)).toBe(2); // 81: 8×
    expect(hits(m, 'key', 1000, 1000)).toBe(MAX_LEVEL);
  });

  it('falls back to 0 within a minute or two of calm, although the surge lasted minutes', () => {
    const m = meter();
    for (let minute = 0; minute < 5; minute++) hits(m, 'key', 10, 60_000);
    let level = 0;
    for (let minute = 0; minute < 5; minute++) level = hits(m, 'key', 1000, 60_000);
    expect(level).toBe(MAX_LEVEL); // a lasting attack does not become "usual"
    now += 120_000; // calm
    expect(m.hit('key')).toBe(0);
  });

  it('measures each subject on its own', () => {
    const m = meter();
    expect(hits(m, 'visitor-a', 200, 10_000)).toBeGreaterThan(0);
    expect(m.hit('visitor-b')).toBe(0);
  });
});

import { SURGE_QUIET_MS, SurgeLog } from './surge-log';

describe('SurgeLog', () => {
  let now = 0;
  const log = () => new SurgeLog(() => now);

  it('reports a start once, then the end after a quiet spell, then a new start', () => {
    now = 1_000_000;
    const surges = log();
    surges.observe('k', 'a', 0);
    expect(surges.drain()).toEqual([]); // level 0 is no surge
    surges.observe('k', 'a', 1);
    surges.observe('k', 'a', 3);
    expect(surges.drain()).toEqual([{ keyId: 'k', accountId: 'a', started: true, level: 3 }]);
    now += 1000;
    surges.observe('k', 'a', 2);
    expect(surges.drain()).toEqual([]); // still the same surge
    now += SURGE_QUIET_MS - 1;
    expect(surges.drain()).toEqual([]);
    now += 1;
    expect(surges.drain()).toEqual([{ keyId: 'k', accountId: 'a', started: false, level: 3 }]);
    expect(surges.drain()).toEqual([]);
    surges.observe('k', 'a', 1);
    expect(surges.drain()).toEqual([{ keyId: 'k', accountId: 'a', started: true, level: 1 }]);
  });

  it('forgets a surge that ended before it was reported, without an end', () => {
    now = 5_000_000;
    const surges = log();
    surges.observe('k', 'a', 1);
    now += SURGE_QUIET_MS;
    expect(surges.drain()).toEqual([]);
  });
});

import { keepTickObjectShape } from './tick-shape';

describe('keepTickObjectShape', () => {
  it("keeps one of nextTick's queue entries, with the keys V8 builds it from", () => {
    const kept = keepTickObjectShape();
    expect(kept).toBeDefined();
    // Jest's own AsyncLocalStorage may add a key of its own after these.
    expect(
      Object.getOwnPropertySymbols(kept)
        .map((s) => s.description)
        .slice(0, 2),
    ).toEqual(['async_id_symbol', 'trigger_async_id_symbol']);
    expect(Object.keys(kept!)).toEqual(['callback', 'args']);
  });

  it('keeps the same entry on a second call', () => {
    expect(keepTickObjectShape()).toBe(keepTickObjectShape());
  });
});

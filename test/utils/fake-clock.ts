/**
 * Starts Jest's fake clock at `now` and returns what `load` requires, loaded afresh under it. The
 * caches' refresh is timed with Date.now(), but lru-cache times its TTL with the `performance`
 * object it finds when first loaded (a normal import gets the real one, which fake timers do not
 * move), and it takes a start time of 0 to mean "no TTL" (the fake performance.now() starts at 0).
 * So the clock is moved off 0 first, then the modules (and lru-cache with them) are loaded in isolation.
 */
export function loadUnderFakeClock<T>(now: number, load: () => T): T {
  jest.useFakeTimers({ now });
  jest.advanceTimersByTime(1);
  let loaded!: T;
  jest.isolateModules(() => {
    loaded = load();
  });
  return loaded;
}

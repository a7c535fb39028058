import { createHook } from 'node:async_hooks';

let kept: object | undefined;

/**
 * Keeps one of `process.nextTick`'s queue entries alive for the life of the process, so that V8
 * never collects the hidden classes ("maps") of those entries.
 *
 * Why: `nextTick` builds each entry with an object literal whose first keys are computed
 * (`{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback, args }`). V8 remembers the
 * map each of those keys was added to, weakly. When a full garbage collection runs while no
 * entry is alive, the maps die, the next entry gets new ones, and V8 marks the sites megamorphic
 * for good: from then on every `nextTick` makes three runtime calls. Node's HTTP server calls
 * `nextTick` about a dozen times per request, so that cost ~35k instructions per API-key request
 * (~17%). The embedded database's start-up (many full collections) triggered it every time.
 * One live entry holds its map and, through the map's back pointers, the whole chain
 * (docs/PERFORMANCE.md, "One nextTick entry kept alive").
 *
 * The entry is taken from an `async_hooks` init hook that is enabled for one `nextTick` call.
 * Call it first thing, before anything starts. Returns the entry kept (undefined if Node no
 * longer reports TickObjects to init hooks; then this does nothing).
 */
export function keepTickObjectShape(): object | undefined {
  if (kept !== undefined) return kept;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject' && kept === undefined) kept = resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(() => undefined);
  } finally {
    hook.disable();
  }
  return kept;
}

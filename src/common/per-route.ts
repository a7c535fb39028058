import type { ExecutionContext } from '@nestjs/common';

/**
 * A route's metadata-derived setting, computed on its first request and then read from a map:
 * decorators never change at run time, and reflector look-ups on every request showed in the
 * profile (docs/BENCHMARKS.md). Keyed by handler and controller, as Nest's reflector reads them.
 */
export function perRoute<T>(compute: (handler: object, controller: object) => T): (context: ExecutionContext) => T {
  const byHandler = new WeakMap<object, WeakMap<object, { value: T }>>();
  return (context) => {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byController = byHandler.get(handler);
    if (byController === undefined) byHandler.set(handler, (byController = new WeakMap()));
    let entry = byController.get(controller);
    if (entry === undefined) byController.set(controller, (entry = { value: compute(handler, controller) }));
    return entry.value;
  };
}

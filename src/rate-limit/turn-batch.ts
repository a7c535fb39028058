/**
 * Collects items and hands them to `flush` together, once per turn of the event loop, after I/O
 * polling (setImmediate): everything added by the requests that one turn read arrives in one call.
 * The rate-limit counters answer through it (docs/PERFORMANCE.md, "Answering once per loop turn").
 */
export class TurnBatch<T> {
  private items: T[] = [];

  constructor(private readonly flush: (items: T[]) => void) {}

  add(item: T): void {
    if (this.items.length === 0) setImmediate(this.release);
    this.items.push(item);
  }

  private readonly release = (): void => {
    const items = this.items;
    this.items = [];
    this.flush(items);
  };
}

/**
 * Metric families whose label sets are bound once: counting on the request path is one addition to
 * a number, and the Prometheus text is built from these numbers only when /metrics is scraped.
 * prom-client's own Counter and Histogram hash their labels on every call, bound or not
 * (docs/PERFORMANCE.md, "Metrics"); these implement the metric interface its Registry reads
 * (`name`, `help`, `type`, `get()`), so they sit in one registry beside its default metrics.
 */

interface MetricValue {
  readonly labels: Record<string, string | number>;
  readonly value: number;
  readonly metricName?: string;
}

interface MetricSnapshot {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly values: MetricValue[];
  readonly aggregator: 'sum';
}

abstract class Family<C> {
  private readonly children = new Map<string, { readonly labels: Record<string, string>; readonly child: C }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
  ) {}

  /** The child of these label values, made once; keep it and count on it. */
  labels(...values: string[]): C {
    const key = values.join('\u0000');
    let entry = this.children.get(key);
    if (entry === undefined) {
      if (values.length !== this.labelNames.length) throw new Error(`${this.name} takes labels ${this.labelNames.join(', ')}`);
      const labels = Object.fromEntries(this.labelNames.map((n, i) => [n, values[i]]));
      entry = { labels, child: this.create() };
      this.children.set(key, entry);
    }
    return entry.child;
  }

  protected abstract create(): C;

  protected entries(): Iterable<{ readonly labels: Record<string, string>; readonly child: C }> {
    return this.children.values();
  }
}

export class CounterChild {
  value = 0;
  inc(): void {
    this.value += 1;
  }
}

export class CounterFamily extends Family<CounterChild> {
  readonly type = 'counter';

  protected create(): CounterChild {
    return new CounterChild();
  }

  get(): MetricSnapshot {
    const values = [...this.entries()].map(({ labels, child }) => ({ labels, value: child.value }));
    return { name: this.name, help: this.help, type: 'counter', values, aggregator: 'sum' };
  }
}

export class HistogramChild {
  /** counts[i]: observations ≤ bounds[i] and > bounds[i-1]; the last one: above every bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && value > b[i]) i++;
    this.counts[i] += 1;
    this.sum += value;
    this.count += 1;
  }
}

export class HistogramFamily extends Family<HistogramChild> {
  readonly type = 'histogram';

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    super(name, help, labelNames);
  }

  protected create(): HistogramChild {
    return new HistogramChild(this.bounds);
  }

  get(): MetricSnapshot {
    const values: MetricValue[] = [];
    for (const { labels, child } of this.entries()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += child.counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: child.count });
      values.push({ metricName: `${this.name}_sum`, labels, value: child.sum });
      values.push({ metricName: `${this.name}_count`, labels, value: child.count });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }
}

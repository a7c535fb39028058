import { keepPreviousData, queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './api';
import { unwrap } from './errors';
import type { components } from './schema';

export type Grain = 'minute' | 'hour' | 'day';
export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx';
export type UsageRow = components['schemas']['UsageRowDto'];
export type WidgetRow = components['schemas']['WidgetStatsRowDto'];
/** Whose requests count: the API keys' (the account's pages and servers), or everyone's, the dashboard's calls included. */
export type Caller = 'apiKey' | 'all';

const STATUS_CLASSES: readonly StatusClass[] = ['2xx', '3xx', '4xx', '5xx'];

/** The periods the dashboard shows, each in whole buckets of its grain, ending with the current one. */
export const RANGES = {
  hour: { grain: 'minute', step: 60_000, buckets: 60 },
  day: { grain: 'hour', step: 3_600_000, buckets: 24 },
  week: { grain: 'day', step: 86_400_000, buckets: 7 },
} as const satisfies Record<string, { grain: Grain; step: number; buckets: number }>;
export type Range = keyof typeof RANGES;

/** What a report covers: `from` (inclusive) to `to` (exclusive), counted per `grain`, on the buckets starting at `times`. */
export interface Period {
  readonly range: Range;
  readonly grain: Grain;
  readonly from: string;
  readonly to: string;
  /** Bucket starts, epoch milliseconds. */
  readonly times: number[];
}

/** `range` as it is at `now`: the last bucket is the current minute, hour or (UTC) day. */
export function periodOf(range: Range, now = Date.now()): Period {
  const { grain, step, buckets } = RANGES[range];
  const end = Math.floor(now / step) * step + step;
  const start = end - buckets * step;
  const times = Array.from({ length: buckets }, (_, i) => start + i * step);
  return { range, grain, from: new Date(start).toISOString(), to: new Date(end).toISOString(), times };
}

/** How often the figures are asked again while the page is shown (not while the tab is in the background). */
export const ANALYTICS_REFRESH_MS = 30_000;

/**
 * The keys name the period by its range, not its dates: each fetch counts the range as it is then
 * (the window moves on with the clock), and the answer carries the period it counts.
 */
export const analyticsKeys = {
  all: ['analytics'] as const,
  usage: (range: Range, groupBy: 'endpoint' | 'apiKey', caller: Caller) => [...analyticsKeys.all, 'usage', groupBy, caller, range] as const,
  statusClasses: (range: Range, caller: Caller) => [...analyticsKeys.all, 'status-classes', caller, range] as const,
  widget: (range: Range) => [...analyticsKeys.all, 'widget', range] as const,
};

/** Asked again every 30 s while the tab is visible; a hidden tab asks nothing, and asks at once when shown again (stale by then). */
const refreshing = { refetchInterval: ANALYTICS_REFRESH_MS, refetchIntervalInBackground: false } as const;

async function usage(period: Period, groupBy: 'endpoint' | 'apiKey' | Grain, caller: Caller, statusClass?: StatusClass) {
  const query = {
    groupBy,
    from: period.from,
    to: period.to,
    ...(statusClass ? { statusClass } : {}),
    ...(caller === 'apiKey' ? { caller } : {}),
  };
  return unwrap(await api.GET('/api/v1/analytics/usage', { params: { query } })).data;
}

/**
 * Requests per bucket of `range`, one series per status class, with the period they count: while
 * the next numbers load, the last ones stay shown (no flicker, an open table stays open).
 */
export const statusClassUsageQuery = (range: Range, caller: Caller) =>
  queryOptions({
    queryKey: analyticsKeys.statusClasses(range, caller),
    queryFn: async () => {
      const period = periodOf(range);
      const rows = await Promise.all(STATUS_CLASSES.map((statusClass) => usage(period, period.grain, caller, statusClass)));
      return { period, byClass: Object.fromEntries(STATUS_CLASSES.map((c, i) => [c, rows[i]])) as Record<StatusClass, UsageRow[]> };
    },
    placeholderData: keepPreviousData,
    ...refreshing,
  });

/** Requests in `range` per endpoint or per API key (grouped by key, only API-key traffic counts anyway). */
export const usageQuery = (range: Range, groupBy: 'endpoint' | 'apiKey', caller: Caller) =>
  queryOptions({
    queryKey: analyticsKeys.usage(range, groupBy, caller),
    queryFn: () => usage(periodOf(range), groupBy, caller),
    ...refreshing,
  });

/** The widget's figures per bucket of `range`, with the period they count; the last ones stay shown while the next load. */
export const widgetStatsQuery = (range: Range) =>
  queryOptions({
    queryKey: analyticsKeys.widget(range),
    queryFn: async () => {
      const period = periodOf(range);
      const query = { groupBy: period.grain, from: period.from, to: period.to };
      return { period, rows: unwrap(await api.GET('/api/v1/analytics/widget', { params: { query } })).data };
    },
    placeholderData: keepPreviousData,
    ...refreshing,
  });

export function useStatusClassUsage(range: Range, caller: Caller) {
  return useQuery(statusClassUsageQuery(range, caller));
}

export function useUsage(range: Range, groupBy: 'endpoint' | 'apiKey', caller: Caller) {
  return useQuery(usageQuery(range, groupBy, caller));
}

export function useWidgetStats(range: Range) {
  return useQuery(widgetStatsQuery(range));
}

/** Asks every figure shown again now (the "Refresh" button); the 30 s refresh goes on. */
export function useRefreshAnalytics() {
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: analyticsKeys.all });
}

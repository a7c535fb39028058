import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
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

/** What a report covers: `from` (inclusive) to `to` (exclusive), counted per `grain` in the time series. */
export interface UsagePeriod {
  readonly grain: Grain;
  readonly from: string;
  readonly to: string;
}

export const analyticsKeys = {
  all: ['analytics'] as const,
  usage: (period: UsagePeriod, groupBy: 'endpoint' | 'apiKey', caller: Caller) =>
    [...analyticsKeys.all, 'usage', groupBy, caller, period.from, period.to] as const,
  statusClasses: (period: UsagePeriod, caller: Caller) =>
    [...analyticsKeys.all, 'status-classes', caller, period.grain, period.from, period.to] as const,
  widget: (period: UsagePeriod) => [...analyticsKeys.all, 'widget', period.grain, period.from, period.to] as const,
};

async function usage(period: UsagePeriod, groupBy: 'endpoint' | 'apiKey' | Grain, caller: Caller, statusClass?: StatusClass) {
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
 * Requests per bucket of `period`, one series per status class, with the period they count: while
 * the next period's numbers load, the last ones stay shown (no flicker, an open table stays open).
 */
export const statusClassUsageQuery = <P extends UsagePeriod>(period: P, caller: Caller) =>
  queryOptions({
    queryKey: analyticsKeys.statusClasses(period, caller),
    queryFn: async () => {
      const rows = await Promise.all(STATUS_CLASSES.map((statusClass) => usage(period, period.grain, caller, statusClass)));
      return { period, byClass: Object.fromEntries(STATUS_CLASSES.map((c, i) => [c, rows[i]])) as Record<StatusClass, UsageRow[]> };
    },
    placeholderData: keepPreviousData,
  });

/** Requests in `period` per endpoint or per API key (grouped by key, only API-key traffic counts anyway). */
export const usageQuery = (period: UsagePeriod, groupBy: 'endpoint' | 'apiKey', caller: Caller) =>
  queryOptions({ queryKey: analyticsKeys.usage(period, groupBy, caller), queryFn: () => usage(period, groupBy, caller) });

/** The widget's figures per bucket of `period`, with the period they count; the last ones stay shown while the next load. */
export const widgetStatsQuery = <P extends UsagePeriod>(period: P) =>
  queryOptions({
    queryKey: analyticsKeys.widget(period),
    queryFn: async () => {
      const query = { groupBy: period.grain, from: period.from, to: period.to };
      return { period, rows: unwrap(await api.GET('/api/v1/analytics/widget', { params: { query } })).data };
    },
    placeholderData: keepPreviousData,
  });

export function useStatusClassUsage<P extends UsagePeriod>(period: P, caller: Caller) {
  return useQuery(statusClassUsageQuery(period, caller));
}

export function useUsage(period: UsagePeriod, groupBy: 'endpoint' | 'apiKey', caller: Caller) {
  return useQuery(usageQuery(period, groupBy, caller));
}

export function useWidgetStats<P extends UsagePeriod>(period: P) {
  return useQuery(widgetStatsQuery(period));
}

import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { api } from './api';
import { unwrap } from './errors';
import type { components } from './schema';

export type AuditEvent = components['schemas']['AuditEventDto'];
export type AuditAction = AuditEvent['action'];

/** The events shown; absent: any. `from` inclusive, `to` exclusive (ISO 8601). */
export interface AuditFilters {
  readonly action?: AuditAction;
  readonly from?: string;
  readonly to?: string;
}

const PAGE_SIZE = 50;

export const auditKeys = {
  all: ['audit-log'] as const,
  list: (filters: AuditFilters) => [...auditKeys.all, filters] as const,
};

/** The audit log, newest first, a page of PAGE_SIZE at a time (each page's `nextCursor` leads to the next). */
export const auditLogQuery = (filters: AuditFilters) =>
  infiniteQueryOptions({
    queryKey: auditKeys.list(filters),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => {
      const query = { limit: PAGE_SIZE, ...filters, ...(pageParam ? { cursor: pageParam } : {}) };
      return unwrap(await api.GET('/api/v1/audit-log', { params: { query } }));
    },
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

/** `enabled: false` while the filters make no sense (the first day after the last). */
export function useAuditLog(filters: AuditFilters, { enabled = true }: { enabled?: boolean } = {}) {
  return useInfiniteQuery({ ...auditLogQuery(filters), enabled });
}

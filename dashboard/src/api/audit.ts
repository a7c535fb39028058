import { keepPreviousData, queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import { api } from './api';
import { unwrap } from './errors';
import { saveFile } from '../save-file';
import type { MutationReactions } from './mutation-reactions';
import type { components } from './schema';

export type AuditEvent = components['schemas']['AuditEventDto'];
export type AuditAction = AuditEvent['action'];

/** The events shown; absent: any. `from` inclusive, `to` exclusive (ISO 8601); `actorId` a user id. */
export interface AuditFilters {
  readonly action?: AuditAction;
  readonly actorId?: string;
  readonly from?: string;
  readonly to?: string;
}

export const AUDIT_PAGE_SIZE = 50;

export const auditKeys = {
  all: ['audit-log'] as const,
  page: (filters: AuditFilters, cursor: string | undefined) => [...auditKeys.all, filters, cursor ?? null] as const,
};

/**
 * One page of the audit log, newest first: the AUDIT_PAGE_SIZE events after `cursor` (the newest
 * without one). The answer's `nextCursor` leads to the next, older page; a cursor names a fixed
 * place in the log, so a page's link shows the same events tomorrow.
 */
export const auditPageQuery = (filters: AuditFilters, cursor: string | undefined) =>
  queryOptions({
    queryKey: auditKeys.page(filters, cursor),
    queryFn: async () => {
      const query = { limit: AUDIT_PAGE_SIZE, ...filters, ...(cursor ? { cursor } : {}) };
      return unwrap(await api.GET('/api/v1/audit-log', { params: { query } }));
    },
  });

/** `enabled: false` while the filters make no sense (the first day after the last). The page shown stays while the next one loads. */
export function useAuditPage(filters: AuditFilters, cursor: string | undefined, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...auditPageQuery(filters, cursor), enabled, placeholderData: keepPreviousData });
}

/**
 * Downloads the filtered log as CSV (GET /api/v1/audit-log/export.csv, at most 100,000 events: a
 * wider range is refused with a message saying so). The file comes with the bearer token, which never
 * goes in a URL, so it is fetched and then handed to the browser as a download under the server's name.
 */
export function useExportAuditLog({ onSuccess, onError }: MutationReactions<string> = {}) {
  return useMutation({
    mutationFn: async (filters: AuditFilters) => {
      const answer = await api.GET('/api/v1/audit-log/export.csv', { params: { query: filters }, parseAs: 'blob' });
      const file = unwrap(answer);
      const name = /filename="([^"]+)"/.exec(answer.response.headers.get('content-disposition') ?? '')?.[1] ?? 'audit-log.csv';
      saveFile(file, name);
      return name;
    },
    onSuccess,
    onError,
  });
}

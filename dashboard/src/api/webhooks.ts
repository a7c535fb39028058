import { infiniteQueryOptions, queryOptions, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './api';
import { unwrap } from './errors';
import type { MutationReactions } from './mutation-reactions';
import type { components } from './schema';

export type Webhook = components['schemas']['WebhookEndpointDto'];
export type CreatedWebhook = components['schemas']['CreatedWebhookEndpointDto'];
export type RotatedWebhookSecret = components['schemas']['RotatedWebhookSecretDto'];
export type WebhookDelivery = components['schemas']['WebhookDeliveryDto'];
export type WebhookAttempt = components['schemas']['WebhookAttemptDto'];
export type WebhookEventType = Webhook['events'][number];

/** What a create or an edit sends; `events` empty: every event type, those added later too. */
export interface WebhookFields {
  url: string;
  events: WebhookEventType[];
  /** Absent: none on create, unchanged on edit; null (edit only): removes it. */
  description?: string | null;
}

/**
 * How often a pending delivery is asked about: every 2 seconds while an attempt is due within a
 * minute (a new event, a retry, the 5-second second attempt), every 30 seconds while the next is
 * minutes or hours away; not at all once nothing is pending. Hidden tabs are not asked (TanStack Query's
 * `refetchIntervalInBackground: false`).
 */
const SOON_MS = 60_000;
const refreshEvery = (pending: boolean, soon: boolean): number | false => (soon ? 2_000 : pending ? 30_000 : false);
const within = (iso: string | null, ms: number) => iso === null || Math.abs(new Date(iso).getTime() - Date.now()) < ms;

export const webhookKeys = {
  all: ['webhooks'] as const,
  list: () => [...webhookKeys.all, 'list'] as const,
  deliveries: (id: string) => [...webhookKeys.all, 'deliveries', id] as const,
};

/** The account's endpoints, newest first, each with its latest delivery (never a secret). */
export const webhooksQuery = () =>
  queryOptions({
    queryKey: webhookKeys.list(),
    queryFn: async () => unwrap(await api.GET('/api/v1/webhooks')).data,
    // The list knows when a pending delivery's event happened, not when its next attempt is due.
    refetchInterval: (query) => {
      const pending = query.state.data?.filter((w) => w.lastDeliveryStatus === 'pending') ?? [];
      return refreshEvery(
        pending.length > 0,
        pending.some((w) => within(w.lastDeliveryAt, SOON_MS)),
      );
    },
  });

/** `enabled: false` for a role that may not manage webhooks (the API would answer 403). */
export function useWebhooks({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...webhooksQuery(), enabled });
}

/** An endpoint's deliveries, newest first, 25 a page (each page's `nextCursor` leads to the next). */
export const deliveriesQuery = (id: string) =>
  infiniteQueryOptions({
    queryKey: webhookKeys.deliveries(id),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.GET('/api/v1/webhooks/{id}/deliveries', {
          params: { path: { id }, query: pageParam ? { cursor: pageParam } : {} },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval: (query) => {
      const pending = query.state.data?.pages.flatMap((p) => p.data.filter((d) => d.status === 'pending')) ?? [];
      return refreshEvery(
        pending.length > 0,
        pending.some((d) => within(d.nextAttemptAt, SOON_MS)),
      );
    },
  });

export function useDeliveries(id: string) {
  return useInfiniteQuery(deliveriesQuery(id));
}

/** A change to endpoints or deliveries: the list (its latest delivery) and every log may differ. */
function useWebhooksChanged() {
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: webhookKeys.all });
}

/** Registers an endpoint (the answer carries its secret, once) or, given `id`, edits that one. */
export function useSaveWebhook(id: string | undefined, { onSuccess }: MutationReactions<Webhook | CreatedWebhook> = {}) {
  const changed = useWebhooksChanged();
  return useMutation({
    mutationFn: async (fields: WebhookFields): Promise<Webhook | CreatedWebhook> => {
      if (id) return unwrap(await api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body: fields }));
      const { description, ...rest } = fields;
      return unwrap(await api.POST('/api/v1/webhooks', { body: description ? { ...rest, description } : rest }));
    },
    onSuccess: (webhook) => {
      changed();
      onSuccess?.(webhook);
    },
  });
}

/** Stops or resumes sending events; resuming forgets a failing streak and Gatehouse's reason. */
export function useSetWebhookEnabled(id: string, { onSuccess }: MutationReactions<Webhook> = {}) {
  const changed = useWebhooksChanged();
  return useMutation({
    mutationFn: async (enabled: boolean) =>
      unwrap(await api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body: { enabled } })),
    onSuccess: (webhook) => {
      changed();
      onSuccess?.(webhook);
    },
  });
}

/** A new signing secret; deliveries carry the old one's signature too for `gracePeriodSeconds`. */
export function useRotateWebhookSecret(
  id: string,
  gracePeriodSeconds: number,
  { onSuccess }: MutationReactions<RotatedWebhookSecret> = {},
) {
  const changed = useWebhooksChanged();
  return useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/webhooks/{id}/rotate-secret', { params: { path: { id } }, body: { gracePeriodSeconds } })),
    onSuccess: (rotated) => {
      changed();
      onSuccess?.(rotated);
    },
  });
}

/** A `webhook.test` delivery, to a disabled endpoint too. */
export function useSendTestWebhook(id: string, { onSuccess }: MutationReactions<{ deliveryId: string }> = {}) {
  const changed = useWebhooksChanged();
  return useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id } } })),
    onSuccess: (accepted) => {
      changed();
      onSuccess?.(accepted);
    },
  });
}

export function useDeleteWebhook(id: string, { onSuccess }: MutationReactions<void> = {}) {
  const changed = useWebhooksChanged();
  return useMutation({
    mutationFn: async () => {
      unwrap(await api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } }));
    },
    onSuccess: () => {
      changed();
      onSuccess?.();
    },
  });
}

/** One more attempt of a delivered or failed delivery, now, with its webhook-id (409 while pending or disabled). */
export function useRetryDelivery(id: string, deliveryId: string, { onSuccess }: MutationReactions<{ deliveryId: string }> = {}) {
  const changed = useWebhooksChanged();
  return useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/webhooks/{id}/deliveries/{deliveryId}/retry', { params: { path: { id, deliveryId } } })),
    onSuccess: (accepted) => {
      changed();
      onSuccess?.(accepted);
    },
  });
}

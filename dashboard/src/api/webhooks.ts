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
  /** Absent: none (the API cannot clear one once set). */
  description?: string;
}

/** While a delivery is pending its next attempt is seconds away: the page asks again this often. */
const PENDING_REFRESH_MS = 2_000;

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
    refetchInterval: (query) => (query.state.data?.some((w) => w.lastDeliveryStatus === 'pending') ? PENDING_REFRESH_MS : false),
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
    refetchInterval: (query) =>
      query.state.data?.pages.some((p) => p.data.some((d) => d.status === 'pending')) ? PENDING_REFRESH_MS : false,
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
    mutationFn: async (fields: WebhookFields): Promise<Webhook | CreatedWebhook> =>
      id
        ? unwrap(await api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body: fields }))
        : unwrap(await api.POST('/api/v1/webhooks', { body: fields })),
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

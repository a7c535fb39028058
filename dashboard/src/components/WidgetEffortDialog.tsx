import { useQuery } from '@tanstack/react-query';
import { api } from '../api/api';
import { unwrap } from '../api/errors';
import type { ApiKey } from '../api/keys';
import { Dialog } from './Dialog';
import { ErrorNote } from './ErrorNote';

const seconds = (ms: number): string => `${(ms / 1000).toLocaleString(undefined, { maximumFractionDigits: 2 })} s`;

/**
 * What a widget key's proof of work costs now (GET /api/v1/analytics/widget/effort): the level in
 * force, whether a surge raised it, people's solve times over 24 hours, and a CPU bot's price.
 */
export function WidgetEffortDialog({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const effort = useQuery({
    queryKey: ['analytics', 'widget-effort', apiKey.id],
    queryFn: async () => unwrap(await api.GET('/api/v1/analytics/widget/effort', { params: { query: { apiKeyId: apiKey.id } } })),
  });
  const e = effort.data;
  return (
    <Dialog title={`Proof of work of ${apiKey.name}`} onClose={onClose}>
      {effort.isPending && <p role="status">Loading…</p>}
      {effort.isError && <ErrorNote error={effort.error} />}
      {e && (
        <dl className="facts" data-testid="widget-effort">
          <dt>Difficulty</dt>
          <dd>
            Visitors wait about {seconds(e.waitMs)} (median) — {e.waitFromPlan ? 'your plan’s default' : 'this key’s own setting'}
          </dd>
          <dt>Surge</dt>
          <dd>{e.surge ? 'On: challenges were raised in the last 5 minutes' : 'Off'}</dd>
          <dt>Solve time, last 24 hours</dt>
          <dd>
            {e.solveMsMedian === null || e.solveMsP90 === null
              ? 'No solves yet'
              : `median ${seconds(e.solveMsMedian)}, 90th percentile ${seconds(e.solveMsP90)} (${e.solves.toLocaleString()} ${e.solves === 1 ? 'solve' : 'solves'})`}
          </dd>
          <dt>What a bot pays</dt>
          <dd>
            {e.botCpuSecondsPer1000Nonces.toLocaleString()} CPU-seconds per 1,000 nonces
            <small className="hint block">
              One core, at this level without a surge. A GPU pays far less: the per-visitor and per-key limits bound it.
            </small>
          </dd>
        </dl>
      )}
      <p className="actions">
        <button type="button" className="primary" onClick={onClose}>
          Close
        </button>
      </p>
    </Dialog>
  );
}

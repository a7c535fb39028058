import { useRetryDelivery, WebhookDelivery } from '../api/webhooks';
import { formatMoment } from '../format';
import { DeliveryStatus } from './DeliveryStatus';
import { ErrorNote } from './ErrorNote';

/** One delivery of the log: its event, status, next attempt, each attempt, and Retry once it is settled. */
export function WebhookDeliveryItem({ endpointId, delivery }: { endpointId: string; delivery: WebhookDelivery }) {
  const retry = useRetryDelivery(endpointId, delivery.id);
  return (
    <li className="delivery" aria-label={`${delivery.eventType} at ${formatMoment(delivery.createdAt)}`}>
      <p className="delivery-head">
        <code>{delivery.eventType}</code> <DeliveryStatus status={delivery.status} />{' '}
        <span className="hint">
          {formatMoment(delivery.createdAt)} · {delivery.attemptCount} attempt{delivery.attemptCount === 1 ? '' : 's'}
        </span>
        {delivery.status !== 'pending' && (
          <button type="button" onClick={() => retry.mutate()} disabled={retry.isPending}>
            Retry
          </button>
        )}
      </p>
      {delivery.nextAttemptAt && <p className="hint">Next attempt: {formatMoment(delivery.nextAttemptAt)}</p>}
      <p className="hint">
        webhook-id <code>{delivery.messageId}</code>
      </p>
      <ErrorNote error={retry.error} />
      {delivery.attempts.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Attempts of this delivery, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">Response</th>
                <th scope="col">Duration</th>
                <th scope="col">Error, answer</th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempts.map((a) => (
                <tr key={a.startedAt}>
                  <td>{formatMoment(a.startedAt)}</td>
                  <td>{a.responseStatus ?? 'no answer'}</td>
                  <td>{a.durationMs} ms</td>
                  <td>
                    {a.error && <span className="attempt-error">{a.error}</span>}
                    {a.responseBody && (
                      <details>
                        <summary>Answer</summary>
                        <pre tabIndex={0}>
                          <code>{a.responseBody}</code>
                        </pre>
                      </details>
                    )}
                    {!a.error && !a.responseBody && '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </li>
  );
}

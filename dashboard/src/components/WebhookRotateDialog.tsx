import { useState } from 'react';
import { RotatedWebhookSecret, useRotateWebhookSecret, Webhook } from '../api/webhooks';
import { ConfirmDialog } from './ConfirmDialog';
import { Field } from './Field';

const GRACE_PERIODS = [
  { seconds: 0, label: 'None: only the new secret signs, at once' },
  { seconds: 3600, label: '1 hour (time to deploy the new one)' },
  { seconds: 21600, label: '6 hours' },
  { seconds: 86400, label: '24 hours (the most)' },
];

/** A new signing secret; during the grace period (an hour unless chosen otherwise) the old one signs too. */
export function WebhookRotateDialog({
  webhook,
  onClose,
  onRotated,
}: {
  webhook: Webhook;
  onClose: () => void;
  onRotated: (rotated: RotatedWebhookSecret) => void;
}) {
  const [grace, setGrace] = useState(3600);
  const rotate = useRotateWebhookSecret(webhook.id, grace, { onSuccess: onRotated });
  return (
    <ConfirmDialog title="Rotate the signing secret" action="Rotate" mutation={rotate} onClose={onClose}>
      <p>
        A new secret for <span className="url">{webhook.url}</span>. Deploy it to the receiver, then let the old one go.
      </p>
      <Field label="The old secret also signs for" hint="Each delivery carries both signatures meanwhile; either verifies.">
        {(props) => (
          <select {...props} value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
            {GRACE_PERIODS.map((g) => (
              <option key={g.seconds} value={g.seconds}>
                {g.label}
              </option>
            ))}
          </select>
        )}
      </Field>
    </ConfirmDialog>
  );
}

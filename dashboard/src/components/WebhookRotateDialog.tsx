import { useState } from 'react';
import { RotatedWebhookSecret, useRotateWebhookSecret, Webhook } from '../api/webhooks';
import { ConfirmDialog } from './ConfirmDialog';
import { GracePeriodField } from './GracePeriodField';

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
      <GracePeriodField
        label="The old secret also signs for"
        hint="Each delivery carries both signatures meanwhile; either verifies."
        none="None: only the new secret signs, at once"
        value={grace}
        onChange={setGrace}
      />
    </ConfirmDialog>
  );
}

import { useDeleteWebhook, Webhook } from '../api/webhooks';
import { ConfirmDialog } from './ConfirmDialog';

export function WebhookDeleteDialog({ webhook, onClose, onDeleted }: { webhook: Webhook; onClose: () => void; onDeleted: () => void }) {
  const remove = useDeleteWebhook(webhook.id, { onSuccess: onDeleted });
  return (
    <ConfirmDialog title="Delete this webhook?" action="Delete webhook" danger mutation={remove} onClose={onClose}>
      <p>
        <span className="url">{webhook.url}</span>
      </p>
      <p className="warning">No more events are sent to it, and its delivery log goes with it. This cannot be undone.</p>
    </ConfirmDialog>
  );
}

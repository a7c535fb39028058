import { formatDate } from '../format';
import { webhookVerifySnippet } from '../snippets';
import { CopyButton } from './CopyButton';
import { Dialog } from './Dialog';
import { Snippet } from './Snippet';

/** A new signing secret, shown this once, and how a receiver verifies deliveries with it. */
export function WebhookSecretDialog({
  url,
  secret,
  previousSecretExpiresAt,
  onClose,
}: {
  url: string;
  secret: string;
  /** After a rotation with a grace period: until when the old secret signs too. */
  previousSecretExpiresAt?: string | null;
  onClose: () => void;
}) {
  return (
    <Dialog title="The signing secret" onClose={onClose}>
      <p>
        For <span className="url">{url}</span>.
      </p>
      <p className="warning">Copy it now: it is not shown again. Rotating the secret is the way out if it is lost.</p>
      {previousSecretExpiresAt && (
        <p className="notice">Until {formatDate(previousSecretExpiresAt)} each delivery is signed with the old secret too.</p>
      )}
      <p>
        <code className="secret" data-testid="secret">
          {secret}
        </code>
      </p>
      <p className="actions">
        <CopyButton text={secret} label="Copy secret" />
      </p>
      <Snippet
        title="Your receiver verifies each delivery (Node, with the standardwebhooks package), the secret in GATEHOUSE_WEBHOOK_SECRET:"
        code={webhookVerifySnippet()}
      />
      <p className="actions">
        <button type="button" className="primary" onClick={onClose}>
          I have stored it
        </button>
      </p>
    </Dialog>
  );
}

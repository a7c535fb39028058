import { Link } from 'react-router';
import type { ApiKey } from '../api/keys';
import { widgetSnippet } from '../snippets';
import { CopyButton } from './CopyButton';
import { Dialog } from './Dialog';
import { Snippet } from './Snippet';

/** A readable widget key (its `widgetKey`) and its snippet, from the key's row, at any time. */
export function WidgetKeyDialog({ apiKey, onClose }: { apiKey: ApiKey & { widgetKey: string }; onClose: () => void }) {
  return (
    <Dialog title={`Widget key ${apiKey.name}`} onClose={onClose}>
      <p>A widget key is public: every page that embeds the widget carries it. Its allowed origins decide where it works.</p>
      <p>
        <code className="secret" data-testid="widget-key">
          {apiKey.widgetKey}
        </code>
      </p>
      <p className="actions">
        <CopyButton text={apiKey.widgetKey} label="Copy widget key" />
      </p>
      <Snippet title="In your form's page:" code={widgetSnippet(window.location.origin, apiKey.widgetKey)} />
      <p>
        Then verify each nonce from your server with a verify key: <Link to="/guide">the guide</Link>.
      </p>
      <p className="actions">
        <button type="button" className="primary" onClick={onClose}>
          Close
        </button>
      </p>
    </Dialog>
  );
}

import { useState } from 'react';

/** Copies `text` to the clipboard and says so (a live region, for screen readers too). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  return (
    <>
      <button
        type="button"
        onClick={() => {
          navigator.clipboard.writeText(text).then(
            () => setCopied('yes'),
            () => setCopied('failed'),
          );
        }}
      >
        {label}
      </button>
      <span role="status" className="copied">
        {copied === 'yes' ? 'Copied.' : copied === 'failed' ? 'Copy failed: select the text and copy it.' : ''}
      </span>
    </>
  );
}

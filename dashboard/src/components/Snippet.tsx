import { CopyButton } from './CopyButton';

/** A piece of code to paste elsewhere, with what it is for and a copy button. */
export function Snippet({ title, code, copyLabel = 'Copy snippet' }: { title: string; code: string; copyLabel?: string }) {
  return (
    <div className="snippet">
      <p>{title}</p>
      <pre tabIndex={0}>
        <code>{code}</code>
      </pre>
      <p className="actions">
        <CopyButton text={code} label={copyLabel} />
      </p>
    </div>
  );
}

import { ReactNode, useEffect, useId, useRef, useState } from 'react';
import { useOutletContext } from 'react-router';
import { ApiError } from '../api/errors';
import type { Me } from '../roles';

/** The signed-in person (Layout's outlet context): pages behind sign-in read it without a fetch. */
export function useMeContext(): Me {
  return useOutletContext<Me>();
}

/** A page's title: focused after navigation, so a screen reader announces the new page. */
export function PageTitle({ children }: { children: ReactNode }) {
  useEffect(() => {
    document.title = `${typeof children === 'string' ? children : 'Dashboard'} · Gatehouse`;
  }, [children]);
  return <h1 tabIndex={-1}>{children}</h1>;
}

/** A page outside the signed-in frame (sign-in, sign-up, the e-mailed links): one narrow panel. */
export function NarrowPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="narrow">
      <p className="brand">Gatehouse</p>
      <PageTitle>{title}</PageTitle>
      {children}
    </main>
  );
}

/** An error for a person: the API's message, the wait on a 429, the field errors on a 400. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof ApiError ? error.describe() : 'Gatehouse could not be reached. Check the connection and try again.';
  return (
    <p className="error" role="alert">
      {text}
    </p>
  );
}

/** A labelled input; `hint` is tied to it with aria-describedby. */
export function Field({
  label,
  hint,
  children,
}: {
  label: string;
  hint?: ReactNode;
  children: (props: { id: string; 'aria-describedby'?: string }) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-describedby': hint ? hintId : undefined })}
      {hint && (
        <small id={hintId} className="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

/** Copies `text` to the clipboard and says so (a live region, for screen readers too). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  return (
    <>
      <button
        type="button"
        onClick={() =>
          navigator.clipboard.writeText(text).then(
            () => setCopied('yes'),
            () => setCopied('failed'),
          )
        }
      >
        {label}
      </button>
      <span role="status" className="copied">
        {copied === 'yes' ? 'Copied.' : copied === 'failed' ? 'Copy failed: select the text and copy it.' : ''}
      </span>
    </>
  );
}

/**
 * A modal dialog (the browser's <dialog>: focus moves in and stays, Escape closes it) that is open
 * while rendered.
 */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    // Removing the element on unmount ends the modal state; closing it here would call onClose.
    if (!ref.current!.open) ref.current!.showModal();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/** What ConfirmDialog runs: a mutation that takes no variables. */
interface Confirmable {
  mutate(): void;
  readonly isPending: boolean;
  readonly error: unknown;
}

/** A dialog that asks before an action: what will happen (children), the action's error, the action and Cancel. */
export function ConfirmDialog({
  title,
  action,
  danger = false,
  mutation,
  onClose,
  children,
}: {
  title: string;
  action: string;
  danger?: boolean;
  mutation: Confirmable;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Dialog title={title} onClose={onClose}>
      {children}
      <ErrorNote error={mutation.error} />
      <p className="actions">
        <button type="button" className={danger ? 'danger' : 'primary'} onClick={() => mutation.mutate()} disabled={mutation.isPending}>
          {action}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </p>
    </Dialog>
  );
}

export function formatDate(iso: string | null | undefined, never = '—'): string {
  if (!iso) return never;
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

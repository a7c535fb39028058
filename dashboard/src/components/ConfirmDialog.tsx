import { ReactNode } from 'react';
import { Dialog } from './Dialog';
import { ErrorNote } from './ErrorNote';

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

import { ReactNode, useEffect, useId, useRef } from 'react';

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

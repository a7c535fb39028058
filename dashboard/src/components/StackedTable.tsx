import { ComponentProps, useImperativeHandle, useLayoutEffect, useRef } from 'react';

/**
 * The box of a list's table (keys, members, audit events). Wide, it is the table as written; narrower
 * than 50rem (a phone, or a small window beside the sidebar: styles.css, `.stacked`), each row becomes a
 * block of its own, one cell a line beside (on the narrowest phones, under) its column's name. The
 * names are copied here from the header row into each cell's `data-label`, and again whenever rows
 * change, so a page writes its table once.
 * A column whose header is only visually hidden (the actions) gets no name. docs/DASHBOARD.md, "Phones".
 * It takes a div's props: a table that may still scroll in its box passes role="region", an aria-label
 * and tabIndex={0}, so a keyboard scrolls it too.
 */
export function StackedTable({ children, ref, className, ...box }: ComponentProps<'div'>) {
  const own = useRef<HTMLDivElement>(null);
  useImperativeHandle(ref, () => own.current!, []);
  useLayoutEffect(() => {
    const element = own.current!;
    labelCells(element);
    // Attribute changes are not observed: labelling does not wake the observer again.
    const observer = new MutationObserver(() => labelCells(element));
    observer.observe(element, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, []);
  return (
    <div {...box} ref={own} className={className ? `table-wrap stacked ${className}` : 'table-wrap stacked'}>
      {children}
    </div>
  );
}

function labelCells(box: HTMLElement): void {
  for (const table of box.querySelectorAll('table')) {
    const names = Array.from(table.querySelectorAll('thead th'), columnName);
    for (const row of table.querySelectorAll('tbody tr')) {
      Array.from(row.children).forEach((cell, i) => {
        const name = names[i] ?? '';
        if (cell.getAttribute('data-label') !== name) cell.setAttribute('data-label', name);
      });
    }
  }
}

/** A header's visible text: without what only screen readers get, nor its hints. */
function columnName(header: Element): string {
  return Array.from(header.childNodes, (node) =>
    node instanceof Element && node.matches('.visually-hidden, .hint') ? '' : (node.textContent ?? ''),
  )
    .join('')
    .trim();
}

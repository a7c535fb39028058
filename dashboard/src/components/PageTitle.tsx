import { ReactNode, useEffect } from 'react';

/** A page's title: focused after navigation, so a screen reader announces the new page. */
export function PageTitle({ children }: { children: ReactNode }) {
  useEffect(() => {
    document.title = `${typeof children === 'string' ? children : 'Dashboard'} · Gatehouse`;
  }, [children]);
  return <h1 tabIndex={-1}>{children}</h1>;
}

import { ReactNode } from 'react';
import { PageTitle } from './PageTitle';

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

import { Navigate, Outlet, useLocation } from 'react-router';
import { useSession } from '../api/session';
import { SessionGuard } from './SessionGuard';

/** Where the sign-in page returns to: the page (path, query, hash) the person was on. */
export interface ReturnState {
  readonly from?: string;
}

/**
 * Pages behind sign-in: without a session, the sign-in page, which returns here afterwards. A session
 * that runs out while a page is open keeps the page, under SessionGuard's dialog.
 */
export function RequireSession() {
  const current = useSession();
  const location = useLocation();
  if (current === null) {
    const from = location.pathname + location.search;
    return <Navigate to="/sign-in" replace state={{ from } satisfies ReturnState} />;
  }
  return (
    <>
      <Outlet />
      <SessionGuard key={current.endsAt} current={current} />
    </>
  );
}

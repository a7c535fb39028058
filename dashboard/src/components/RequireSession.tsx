import { Navigate, Outlet, useLocation } from 'react-router';
import { useSession } from '../api/session';

/** Where the sign-in page returns to: the page (path, query, hash) the person was on. */
export interface ReturnState {
  readonly from?: string;
}

/** Pages behind sign-in: without a session, the sign-in page, which returns here afterwards. */
export function RequireSession() {
  const current = useSession();
  const location = useLocation();
  if (current === null) {
    const from = location.pathname + location.search;
    return <Navigate to="/sign-in" replace state={{ from } satisfies ReturnState} />;
  }
  return <Outlet />;
}

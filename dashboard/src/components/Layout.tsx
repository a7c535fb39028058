import { useEffect } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useOutletContext } from 'react-router';
import { useMe, useSignOut } from '../api/auth';
import { useSecondFactorDemanded } from '../api/session';
import { can, Me } from '../roles';
import { ErrorNote } from './ErrorNote';

/** The signed-in person (Layout's outlet context): pages behind sign-in read it without a fetch. */
export function useMeContext(): Me {
  return useOutletContext<Me>();
}

/** The signed-in frame: navigation for what the role may see, the account, and sign-out. */
export function Layout() {
  const me = useMe();
  const location = useLocation();
  const signOut = useSignOut();
  // The account requires a second factor this person has not set up: the API refuses the rest until then.
  const demanded = useSecondFactorDemanded();
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [location.pathname]);
  const role = me.data?.role;
  useEffect(() => {
    // On a phone the navigation is one row that scrolls sideways: the current page's link comes to
    // its middle (again once the role's links are in).
    document.querySelector('nav a.active')?.scrollIntoView({ block: 'nearest', inline: 'center' });
  }, [location.pathname, role]);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Gatehouse</span>
        {me.data && (
          <span className="who">
            {me.data.account.name} · {me.data.email} <span className="badge">{me.data.role}</span>
          </span>
        )}
        <button type="button" className="link" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </button>
      </header>
      <nav aria-label="Dashboard">
        <ul>
          {role && can.manageKeys(role) && (
            <li>
              <NavLink to="/keys">API keys</NavLink>
            </li>
          )}
          {role && can.manageWebhooks(role) && (
            <li>
              <NavLink to="/webhooks">Webhooks</NavLink>
            </li>
          )}
          <li>
            <NavLink to="/analytics">Analytics</NavLink>
          </li>
          <li>
            <NavLink to="/team">Team</NavLink>
          </li>
          {role && can.readAudit(role) && (
            <li>
              <NavLink to="/audit">Audit log</NavLink>
            </li>
          )}
          <li>
            <NavLink to="/settings">Account and plan</NavLink>
          </li>
          <li>
            <NavLink to="/profile">Profile</NavLink>
          </li>
          <li>
            <NavLink to="/security">Security</NavLink>
          </li>
        </ul>
        <p className="nav-footer">
          {/* Swagger UI and the OpenAPI document are served by the app, outside the dashboard's router. */}
          <NavLink to="/guide">Protect a form: the guide</NavLink>
          <br />
          <a href="/docs">API reference</a>
        </p>
      </nav>
      <main id="main">
        {demanded && location.pathname !== '/security' ? (
          <Navigate to="/security" replace />
        ) : me.error ? (
          <ErrorNote error={me.error} />
        ) : me.data ? (
          <Outlet context={me.data} />
        ) : (
          <p role="status">Loading…</p>
        )}
      </main>
    </div>
  );
}

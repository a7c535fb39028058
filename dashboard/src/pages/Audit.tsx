import { useState } from 'react';
import { AuditAction as Action, AuditEvent, useAuditLog } from '../api/audit';
import { ErrorNote } from '../components/ErrorNote';
import { Field } from '../components/Field';
import { useMeContext } from '../components/Layout';
import { PageTitle } from '../components/PageTitle';
import { StackedTable } from '../components/StackedTable';
import { formatDate } from '../format';
import { can } from '../roles';

/** Every action the log records (the Record makes a new one a compile error until it is named here). */
const ACTIONS: Record<Action, string> = {
  'auth.login': 'Signed in',
  'auth.login_failed': 'Sign-in failed',
  'auth.logout': 'Signed out',
  'auth.password_changed': 'Password changed',
  'auth.password_reset': 'Password reset used',
  'api_key.created': 'API key created',
  'api_key.updated': 'API key edited',
  'api_key.rotated': 'API key rotated',
  'api_key.revoked': 'API key revoked',
  'team.invitation_created': 'Invitation sent',
  'team.invitation_accepted': 'Invitation accepted',
  'team.invitation_revoked': 'Invitation revoked',
  'team.password_reset_issued': 'Password reset issued',
  'team.role_changed': 'Role changed',
  'team.member_removed': 'Member removed',
  'account.created': 'Account created',
  'account.updated': 'Account edited',
  'account.plan_changed': 'Plan changed',
};

interface Filters {
  action: Action | '';
  /** yyyy-mm-dd in the person's time zone, or ''. */
  from: string;
  to: string;
}

/** Local midnight of a yyyy-mm-dd day, `days` later. */
function dayStart(day: string, days = 0): string {
  const [y, m, d] = day.split('-').map(Number);
  const start = new Date(y, m - 1, d + days);
  // A day beyond what Date holds goes as typed: the API refuses it, and says why.
  return Number.isNaN(start.getTime()) ? day : start.toISOString();
}

export function AuditPage() {
  const me = useMeContext();
  if (!can.readAudit(me.role)) {
    return (
      <>
        <PageTitle>Audit log</PageTitle>
        <p>The audit log is for the owner and the admins of {me.account.name}: ask one of them what you need to know.</p>
      </>
    );
  }
  return <AuditLog />;
}

function AuditLog() {
  const [filters, setFilters] = useState<Filters>({ action: '', from: '', to: '' });
  const badRange = filters.from !== '' && filters.to !== '' && filters.from > filters.to;
  const events = useAuditLog(
    {
      ...(filters.action ? { action: filters.action } : {}),
      ...(filters.from ? { from: dayStart(filters.from) } : {}),
      // The "to" day is included: events before the next day's start.
      ...(filters.to ? { to: dayStart(filters.to, 1) } : {}),
    },
    { enabled: !badRange },
  );
  const rows = events.data?.pages.flatMap((p) => p.data) ?? [];
  const filtered = filters.action !== '' || filters.from !== '' || filters.to !== '';
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p>Who did what in this account, newest first: sign-ins, keys, members, account and plan changes. Secrets are never recorded.</p>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter the audit log">
        <Field label="Action">
          {(props) => (
            <select {...props} value={filters.action} onChange={(e) => setFilters({ ...filters, action: e.target.value as Action | '' })}>
              <option value="">All actions</option>
              {(Object.keys(ACTIONS) as Action[]).map((action) => (
                <option key={action} value={action}>
                  {ACTIONS[action]} ({action})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="From (day)">
          {(props) => (
            <input {...props} type="date" value={filters.from} onChange={(e) => setFilters({ ...filters, from: e.target.value })} />
          )}
        </Field>
        <Field label="To (day, included)">
          {(props) => <input {...props} type="date" value={filters.to} onChange={(e) => setFilters({ ...filters, to: e.target.value })} />}
        </Field>
        {filtered && (
          <button type="button" onClick={() => setFilters({ action: '', from: '', to: '' })}>
            Clear filters
          </button>
        )}
      </form>
      {badRange && (
        <p className="error" role="alert">
          The first day comes after the last one.
        </p>
      )}
      <ErrorNote error={events.error} />
      {events.isLoading && <p role="status">Loading events…</p>}
      {events.data && rows.length === 0 && <p>{filtered ? 'No events match these filters.' : 'No events yet.'}</p>}
      {rows.length > 0 && (
        <StackedTable>
          <table>
            <caption className="visually-hidden">Audit events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((event) => (
                <tr key={event.id}>
                  <th scope="row">
                    <time dateTime={event.createdAt}>{formatDate(event.createdAt)}</time>
                  </th>
                  <td>{event.actorEmail ?? '—'}</td>
                  <td>
                    {ACTIONS[event.action] ?? event.action} <code className="muted">{event.action}</code>
                  </td>
                  <td>
                    {event.targetType ? (
                      <>
                        {event.targetType.replace('_', ' ')} {event.targetId && <code className="muted">{event.targetId.slice(0, 8)}</code>}
                      </>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>
                    <Details details={event.details} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </StackedTable>
      )}
      <p className="actions">
        {events.hasNextPage && (
          <button type="button" onClick={() => void events.fetchNextPage()} disabled={events.isFetchingNextPage}>
            {events.isFetchingNextPage ? 'Loading older events…' : 'Older events'}
          </button>
        )}
        {events.data && !events.hasNextPage && rows.length > 0 && (
          <span className="hint">That is every event{filtered ? ' that matches' : ''}.</span>
        )}
      </p>
    </>
  );
}

/** What changed, one `name: value` a line; null is a setting back to its default. */
function Details({ details }: { details: AuditEvent['details'] }) {
  const entries = Object.entries(details ?? {});
  if (entries.length === 0) return <>—</>;
  return (
    <ul className="details">
      {entries.map(([name, value]) => (
        <li key={name}>
          <span className="muted">{name}:</span> {formatValue(value)}
        </li>
      ))}
    </ul>
  );
}

function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'default';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(', ');
  if (typeof value === 'object' && 'from' in value && 'to' in value) return `${formatValue(value.from)} → ${formatValue(value.to)}`;
  if (typeof value === 'string') return value;
  // The rest of what JSON holds: objects, numbers and booleans.
  return JSON.stringify(value);
}

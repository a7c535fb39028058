import { useEffect, useRef } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { AuditAction as Action, AuditEvent, AuditFilters, useAuditPage, useExportAuditLog } from '../api/audit';
import { useMembers } from '../api/team';
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
  'auth.session_ended': 'Session ended',
  'auth.mfa_enabled': 'Authenticator app turned on',
  'auth.mfa_disabled': 'Authenticator app turned off',
  'auth.recovery_codes_regenerated': 'Recovery codes renewed',
  'auth.recovery_code_used': 'Recovery code used',
  'auth.passkey_added': 'Passkey added',
  'auth.passkey_removed': 'Passkey removed',
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
  'account.mfa_requirement_changed': 'Second-factor requirement changed',
  'webhook.created': 'Webhook added',
  'webhook.updated': 'Webhook edited',
  'webhook.deleted': 'Webhook removed',
  'webhook.secret_rotated': 'Webhook secret rotated',
  'webhook.test_sent': 'Webhook test sent',
  'webhook.delivery_retried': 'Webhook delivery retried',
  'webhook.disabled': 'Webhook disabled by Gatehouse',
};

/** What the page shows, as its URL says it (`?action&actor&from&to&cursor`): a reload or a shared link shows the same. */
interface View {
  action: Action | '';
  /** A user id, or ''. */
  actor: string;
  /** yyyy-mm-dd in the person's time zone, or ''. */
  from: string;
  to: string;
  /** nextCursor of the page before, or '' for the newest events. */
  cursor: string;
}

const EMPTY: View = { action: '', actor: '', from: '', to: '', cursor: '' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;

/** A real day written yyyy-mm-dd, as a date input writes it. */
function isDay(value: string): boolean {
  const match = /^(\d{4,6})-(\d\d)-(\d\d)$/.exec(value);
  if (!match) return false;
  const [y, m, d] = match.slice(1).map(Number);
  const day = new Date(y, m - 1, d);
  return day.getFullYear() === y && day.getMonth() === m - 1 && day.getDate() === d;
}

const VALID: Record<keyof View, (value: string) => boolean> = {
  action: (value) => Object.keys(ACTIONS).includes(value),
  actor: (value) => UUID.test(value),
  from: isDay,
  to: isDay,
  cursor: (value) => CURSOR.test(value),
};

/** The view the URL holds, and the names of the parameters it holds no valid value for (left out, and gone from the URL at the next change). */
function readView(params: URLSearchParams): { view: View; ignored: (keyof View)[] } {
  const view = { ...EMPTY };
  const ignored: (keyof View)[] = [];
  for (const name of Object.keys(EMPTY) as (keyof View)[]) {
    const value = params.get(name);
    if (value === null || value === '') continue;
    if (VALID[name](value)) (view as Record<keyof View, string>)[name] = value;
    else ignored.push(name);
  }
  return { view, ignored };
}

function writeView(view: View): URLSearchParams {
  return new URLSearchParams(Object.entries(view).filter(([, value]) => value !== ''));
}

const PARAMETER_NAMES: Record<keyof View, string> = {
  action: 'action',
  actor: 'member',
  from: 'first day',
  to: 'last day',
  cursor: 'page',
};

/** Local midnight of a yyyy-mm-dd day, `days` later. */
function dayStart(day: string, days = 0): string {
  const [y, m, d] = day.split('-').map(Number);
  const start = new Date(y, m - 1, d + days);
  // A day beyond what Date holds goes as typed: the API refuses it, and says why.
  return Number.isNaN(start.getTime()) ? day : start.toISOString();
}

/** The view's filters as the API takes them (the "to" day included: events before the next day's start). */
function filtersOf(view: View): AuditFilters {
  return {
    ...(view.action ? { action: view.action } : {}),
    ...(view.actor ? { actorId: view.actor } : {}),
    ...(view.from ? { from: dayStart(view.from) } : {}),
    ...(view.to ? { to: dayStart(view.to, 1) } : {}),
  };
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
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const { view, ignored } = readView(params);
  /** A new filter starts at the newest events; the address changes in place (Back leaves the page, not the filter). */
  const filterBy = (change: Partial<View>) => {
    setParams(writeView({ ...view, ...change, cursor: '' }), { replace: true });
  };
  const badRange = view.from !== '' && view.to !== '' && view.from > view.to;
  const filters = filtersOf(view);
  const page = useAuditPage(filters, view.cursor || undefined, { enabled: !badRange });
  const members = useMembers();
  const exported = useExportAuditLog();
  const rows = page.data?.data ?? [];
  const nextCursor = page.data?.nextCursor ?? null;
  const filtered = view.action !== '' || view.actor !== '' || view.from !== '' || view.to !== '';
  /** "Older events" leaves a history entry that "Newer events" goes back to (as Back does). */
  const cameFromNewer = (location.state as { newer?: boolean } | null)?.newer === true;
  const table = useRef<HTMLDivElement>(null);
  const pageShown = view.cursor;
  useEffect(() => {
    if (pageShown !== '') table.current?.scrollIntoView?.({ block: 'start' });
  }, [pageShown]);
  const memberOptions = [...(members.data ?? [])].sort((a, b) => a.email.localeCompare(b.email));
  const actorKnown = view.actor === '' || memberOptions.some((m) => m.id === view.actor);
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p>
        Who did what in this account, newest first: sign-ins, keys, members, account and plan changes, each with the IP address it came
        from. Secrets are never recorded.
      </p>
      {ignored.length > 0 && (
        <p className="notice" role="status">
          This link&apos;s {ignored.map((name) => PARAMETER_NAMES[name]).join(', ')} could not be read, and{' '}
          {ignored.length === 1 ? 'is' : 'are'} left out.
        </p>
      )}
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter the audit log">
        <Field label="Action">
          {(props) => (
            <select {...props} value={view.action} onChange={(e) => filterBy({ action: e.target.value as Action | '' })}>
              <option value="">All actions</option>
              {(Object.keys(ACTIONS) as Action[]).map((action) => (
                <option key={action} value={action}>
                  {ACTIONS[action]} ({action})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Member">
          {(props) => (
            <select {...props} value={view.actor} onChange={(e) => filterBy({ actor: e.target.value })}>
              <option value="">Anyone</option>
              {memberOptions.map((member) => (
                <option key={member.id} value={member.id}>
                  {member.email}
                </option>
              ))}
              {!actorKnown && (
                <option value={view.actor}>
                  {members.data ? 'Removed member' : 'Member'} {view.actor.slice(0, 8)}
                </option>
              )}
            </select>
          )}
        </Field>
        <Field label="From (day)">
          {(props) => <input {...props} type="date" value={view.from} onChange={(e) => filterBy({ from: e.target.value })} />}
        </Field>
        <Field label="To (day, included)">
          {(props) => <input {...props} type="date" value={view.to} onChange={(e) => filterBy({ to: e.target.value })} />}
        </Field>
        {filtered && (
          <button type="button" onClick={() => filterBy(EMPTY)}>
            Clear filters
          </button>
        )}
        <button
          type="button"
          onClick={() => exported.mutate(filters)}
          disabled={badRange || exported.isPending}
          aria-describedby="audit-export-hint"
        >
          {exported.isPending ? 'Preparing the CSV…' : 'Download CSV'}
        </button>
      </form>
      <p id="audit-export-hint" className="hint">
        The CSV holds every event {filtered ? 'these filters select' : 'of the log'}, not only this page (at most 100,000: narrow the days
        for more).
      </p>
      {exported.isSuccess && (
        <p role="status" className="hint">
          Downloaded {exported.data}.
        </p>
      )}
      <ErrorNote error={exported.error} />
      {badRange && (
        <p className="error" role="alert">
          The first day comes after the last one.
        </p>
      )}
      <ErrorNote error={page.error} />
      {page.isLoading && <p role="status">Loading events…</p>}
      {page.data && rows.length === 0 && <p>{filtered ? 'No events match these filters.' : 'No events yet.'}</p>}
      {rows.length > 0 && (
        // Wider than a phone, and than some desktops: stacked rows on a narrow screen; the box is reachable by keyboard.
        <StackedTable ref={table} tabIndex={0} role="region" aria-label="Audit events">
          <table>
            <caption className="visually-hidden">Audit events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">IP address</th>
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
                  <td>
                    <Actor event={event} />
                  </td>
                  <td>{event.ip ?? '—'}</td>
                  <td>
                    {ACTIONS[event.action] ?? event.action} <code className="muted">{event.action}</code>
                  </td>
                  <td>
                    <Target event={event} />
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
      <nav className="actions" aria-label="Audit log pages">
        {view.cursor !== '' && cameFromNewer && (
          <button type="button" onClick={() => void navigate(-1)}>
            Newer events
          </button>
        )}
        {view.cursor !== '' && (
          <button type="button" onClick={() => setParams(writeView({ ...view, cursor: '' }))}>
            Newest events
          </button>
        )}
        {nextCursor !== null && (
          <button
            type="button"
            onClick={() => setParams(writeView({ ...view, cursor: nextCursor }), { state: { newer: true } })}
            disabled={page.isPlaceholderData}
          >
            Older events
          </button>
        )}
        {page.data && nextCursor === null && rows.length > 0 && (
          <span className="hint">
            {view.cursor === '' ? `That is every event${filtered ? ' that matches' : ''}.` : `No older events${filtered ? ' match' : ''}.`}
          </span>
        )}
      </nav>
    </>
  );
}

/** Who acted: their email now; a removed member by id (and the email recorded then); for a failed sign-in, the address tried. */
function Actor({ event }: { event: AuditEvent }) {
  if (event.actorName !== null) return <>{event.actorName}</>;
  if (event.actorId === null) return <>{event.actorEmail ?? '—'}</>;
  return (
    <>
      removed member <code className="muted">{event.actorId.slice(0, 8)}</code>
      {event.actorEmail && <span className="muted"> ({event.actorEmail} then)</span>}
    </>
  );
}

const TARGET_KINDS: Record<string, string> = { user: 'member', api_key: 'API key', invitation: 'invitation', account: 'account' };

/** What was acted on, by its name now; by id once it no longer exists. */
function Target({ event }: { event: AuditEvent }) {
  if (event.targetType === null) return <>—</>;
  const kind = TARGET_KINDS[event.targetType] ?? event.targetType.replace('_', ' ');
  if (event.targetName !== null)
    return (
      <>
        {kind} {event.targetName}
      </>
    );
  return (
    <>
      {kind} {event.targetId && <code className="muted">{event.targetId.slice(0, 8)}</code>}
      <span className="muted"> ({event.targetType === 'user' ? 'removed' : 'deleted'})</span>
    </>
  );
}

/** What a null detail means, where it is not "back to the default" (a difficulty of null is the plan's). */
const NULL_MEANS: Record<string, string> = { description: 'none' };

/** What changed, one `name: value` a line. */
function Details({ details }: { details: AuditEvent['details'] }) {
  const entries = Object.entries(details ?? {});
  if (entries.length === 0) return <>—</>;
  return (
    <ul className="details">
      {entries.map(([name, value]) => (
        <li key={name}>
          <span className="muted">{name}:</span> {value === null ? (NULL_MEANS[name] ?? 'default') : formatValue(value)}
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

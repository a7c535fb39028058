import { ReactNode, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import {
  ANALYTICS_REFRESH_MS,
  Caller,
  Grain,
  Period,
  Range,
  RANGES,
  StatusClass,
  UsageRow,
  useRefreshAnalytics,
  useStatusClassUsage,
  useUsage,
  useWidgetStats,
  WidgetRow,
} from '../api/analytics';
import { useKeys } from '../api/keys';
import { ChartSeries, TimeChart } from '../components/Chart';
import { ErrorNote } from '../components/ErrorNote';
import { useMeContext } from '../components/Layout';
import { PageTitle } from '../components/PageTitle';
import { can } from '../roles';
import type { Tone } from '../series-tones';

const RANGE_LABELS: Record<Range, string> = { hour: 'Last hour', day: 'Last 24 hours', week: 'Last 7 days' };
/** The callers as the address names them (`?requests=all`). */
const CALLER_PARAMS: Record<Caller, string> = { apiKey: 'keys', all: 'all' };
const DEFAULT_RANGE: Range = 'hour';
const DEFAULT_CALLER: Caller = 'apiKey';

const STATUS_CLASSES: { id: StatusClass; label: string; tone: Tone }[] = [
  { id: '2xx', label: '2xx success', tone: 'good' },
  { id: '3xx', label: '3xx redirect', tone: 'neutral' },
  { id: '4xx', label: '4xx refused', tone: 'bad' },
  { id: '5xx', label: '5xx server error', tone: 'fault' },
];
type WidgetField = Exclude<keyof WidgetRow, 'key'>;
type WidgetFigure = { field: WidgetField; label: string; tone: Tone };
const CHALLENGE_FIGURES: WidgetFigure[] = [
  { field: 'challengesIssued', label: 'Challenges issued', tone: 'neutral' },
  { field: 'challengesSolved', label: 'Challenges solved', tone: 'good' },
  { field: 'challengesFailed', label: 'Challenges failed', tone: 'bad' },
];
const NONCE_FIGURES: WidgetFigure[] = [
  { field: 'noncesValid', label: 'Nonces valid', tone: 'good' },
  { field: 'noncesInvalid', label: 'Nonces invalid', tone: 'bad' },
];
type FigurePart = { field: WidgetField; label: string };
/** The parts listed beneath a figure: why challenges failed, why verifications answered invalid (the API's reasons). */
const FIGURE_PARTS: Partial<Record<WidgetField, { testId: string; parts: FigurePart[] }>> = {
  challengesFailed: {
    testId: 'failed-reasons',
    parts: [
      { field: 'challengesFailedInvalid', label: 'Wrong or forged' },
      { field: 'challengesFailedExpired', label: 'Expired' },
      { field: 'challengesFailedAlreadyUsed', label: 'Already used' },
      { field: 'challengesFailedOrigin', label: 'Page not allowed' },
    ],
  },
  noncesInvalid: {
    testId: 'invalid-reasons',
    parts: [
      { field: 'noncesUnknown', label: 'Unknown' },
      { field: 'noncesExpired', label: 'Expired' },
      { field: 'noncesAlreadyUsed', label: 'Already used' },
    ],
  },
};
const TOP = 10;

/**
 * The period and the callers shown, from the address (`?period=week&requests=all`): a reload or a
 * shared link shows the same. A value the page does not know counts as the default.
 */
function useFilters() {
  const [params, setParams] = useSearchParams();
  const period = params.get('period');
  const range: Range = period !== null && Object.hasOwn(RANGES, period) ? (period as Range) : DEFAULT_RANGE;
  const caller: Caller = params.get('requests') === CALLER_PARAMS.all ? 'all' : DEFAULT_CALLER;
  /** Replaces the address's entry (choosing a filter is not a page to go back to); defaults leave the address. */
  const set = (next: { range?: Range; caller?: Caller }) =>
    setParams(
      (current) => {
        const params = new URLSearchParams(current);
        const r = next.range ?? range;
        const c = next.caller ?? caller;
        if (r === DEFAULT_RANGE) params.delete('period');
        else params.set('period', r);
        if (c === DEFAULT_CALLER) params.delete('requests');
        else params.set('requests', CALLER_PARAMS[c]);
        return params;
      },
      // At once, not as a transition: the radio shows its choice without flicking back first.
      { replace: true, flushSync: true },
    );
  return { range, caller, set };
}

/** The API's rows (only buckets with counts) on every bucket of the period, zero where it has none. */
function onBuckets<T extends { key: string }>(period: Period, rows: readonly T[], value: (row: T) => number): number[] {
  const byTime = new Map(rows.map((r) => [new Date(r.key).getTime(), value(r)]));
  return period.times.map((t) => byTime.get(t) ?? 0);
}

const rangeLabel = (period: Period) => RANGE_LABELS[period.range].toLowerCase();
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

function timeLabel(grain: Grain): (ms: number) => string {
  const format =
    grain === 'day'
      ? new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' })
      : new Intl.DateTimeFormat(undefined, grain === 'hour' ? { dateStyle: 'short', timeStyle: 'short' } : { timeStyle: 'short' });
  return (ms) => format.format(ms);
}

export function AnalyticsPage() {
  const me = useMeContext();
  const { range, caller, set } = useFilters();
  const refresh = useRefreshAnalytics();
  return (
    <>
      <PageTitle>Analytics</PageTitle>
      <p>
        Every answer of the API to {me.account.name} counts, refused ones too. Times are in your time zone
        {RANGES[range].grain === 'day' ? '; days are UTC days' : ''}. The figures are asked again every {ANALYTICS_REFRESH_MS / 1000}{' '}
        seconds while this page is shown.
      </p>
      <form className="period" onSubmit={(e) => e.preventDefault()}>
        <fieldset>
          <legend>Period</legend>
          {(Object.keys(RANGES) as Range[]).map((id) => (
            <label key={id} className="inline-choice">
              <input type="radio" name="range" value={id} checked={range === id} onChange={() => set({ range: id })} /> {RANGE_LABELS[id]}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Requests</legend>
          <label className="inline-choice">
            <input type="radio" name="caller" checked={caller === 'apiKey'} onChange={() => set({ caller: 'apiKey' })} /> With API keys
            (your pages and servers)
          </label>
          <label className="inline-choice">
            <input type="radio" name="caller" checked={caller === 'all'} onChange={() => set({ caller: 'all' })} /> All, this dashboard's
            included
          </label>
        </fieldset>
        <button type="button" onClick={refresh}>
          Refresh
        </button>
      </form>
      <Requests range={range} caller={caller} />
      <Breakdowns range={range} caller={caller} canListKeys={can.manageKeys(me.role)} />
      <Widget range={range} />
    </>
  );
}

function Requests({ range, caller }: { range: Range; caller: Caller }) {
  // The last period's chart stays until the next one's numbers are in (no flicker, "Show as table" stays open).
  const byClass = useStatusClassUsage(range, caller);
  const shown = byClass.data?.period;
  const series = useMemo<ChartSeries[] | undefined>(
    () =>
      byClass.data &&
      STATUS_CLASSES.map(({ id, label, tone }) => ({
        label,
        values: onBuckets(byClass.data.period, byClass.data.byClass[id], (r) => r.count),
        tone,
      })),
    [byClass.data],
  );
  const total = series ? sum(series.map((s) => sum(s.values))) : 0;
  return (
    <section className="panel" aria-labelledby="requests-title" aria-busy={byClass.isPlaceholderData}>
      <h2 id="requests-title">Requests by status</h2>
      <ErrorNote error={byClass.error} />
      {byClass.isPending && <p role="status">Loading requests…</p>}
      {series && total === 0 && <p>No requests in this period.</p>}
      {series && shown && total > 0 && (
        <>
          <p className="totals" data-testid="request-totals">
            <strong>{total.toLocaleString()}</strong> requests
            {series.map((s) => (
              <span key={s.label}>
                {' '}
                · {s.label.split(' ')[0]}: {sum(s.values).toLocaleString()}
              </span>
            ))}
          </p>
          <TimeChart
            caption={`Requests per ${shown.grain} in the ${rangeLabel(shown)}, one line per status class: ${series
              .map((s) => `${sum(s.values).toLocaleString()} ${s.label}`)
              .join(', ')}.`}
            tableCaption={`Requests per ${shown.grain} by status class`}
            times={shown.times}
            grain={shown.grain}
            series={series}
            formatTime={timeLabel(shown.grain)}
          />
        </>
      )}
    </section>
  );
}

function Breakdowns({ range, caller, canListKeys }: { range: Range; caller: Caller; canListKeys: boolean }) {
  const endpoints = useUsage(range, 'endpoint', caller);
  // Grouped by key, only API-key traffic counts anyway.
  const byKey = useUsage(range, 'apiKey', 'apiKey');
  // An analyst may not list keys (403): then the table shows each key's id, and says why.
  const keys = useKeys({ enabled: canListKeys });
  const names = new Map(keys.data?.map((k) => [k.id, k]));
  return (
    <>
      <section className="panel" aria-labelledby="endpoints-title">
        <h2 id="endpoints-title">By endpoint</h2>
        <ErrorNote error={endpoints.error} />
        {endpoints.isPending && <p role="status">Loading endpoints…</p>}
        {endpoints.data && (
          <CountTable
            rows={endpoints.data}
            caption="Requests per endpoint, most first"
            heading="Endpoint"
            name={(r) => <code>{r.key}</code>}
            empty="No requests in this period."
            more="endpoints"
          />
        )}
      </section>
      <section className="panel" aria-labelledby="keys-title">
        <h2 id="keys-title">By API key</h2>
        <p className="hint">Requests made with an API key; the dashboard's calls are not among them.</p>
        {!canListKeys && <p className="hint">Key names are shown to those who manage keys; an analyst sees each key's id.</p>}
        <ErrorNote error={byKey.error ?? keys.error} />
        {byKey.isPending && <p role="status">Loading keys…</p>}
        {byKey.data && (
          <CountTable
            rows={byKey.data}
            caption="Requests per API key, most first"
            heading="API key"
            name={(r) => {
              const key = names.get(r.key);
              if (!key) return <code>{r.key}</code>;
              return (
                <>
                  {key.name} <code className="muted">{key.prefix}…</code>
                  {key.status === 'revoked' && <span className="badge revoked">revoked</span>}
                </>
              );
            }}
            empty="No API-key requests in this period."
            more="keys"
          />
        )}
      </section>
    </>
  );
}

function CountTable({
  rows,
  caption,
  heading,
  name,
  empty,
  more,
}: {
  rows: UsageRow[];
  caption: string;
  heading: string;
  name: (row: UsageRow) => ReactNode;
  empty: string;
  more: string;
}) {
  if (rows.length === 0) return <p>{empty}</p>;
  const sorted = [...rows].sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
  const total = sum(rows.map((r) => r.count));
  const shown = sorted.slice(0, TOP);
  const rest = sorted.slice(TOP);
  return (
    // Scrolls sideways on a narrow screen: focusable, so a keyboard scrolls it too.
    <div className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{heading}</th>
            <th scope="col" className="number">
              Requests
            </th>
            <th scope="col" className="number">
              Share
            </th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.key}>
              <th scope="row">{name(r)}</th>
              <td className="number">{r.count.toLocaleString()}</td>
              <td className="number">{formatShare(r.count, total)}</td>
            </tr>
          ))}
          {rest.length > 0 && (
            <tr>
              <th scope="row">
                {rest.length} more {more}
              </th>
              <td className="number">{sum(rest.map((r) => r.count)).toLocaleString()}</td>
              <td className="number">{formatShare(sum(rest.map((r) => r.count)), total)}</td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

function formatShare(count: number, total: number): string {
  return total === 0 ? '—' : `${((count / total) * 100).toFixed(count === total ? 0 : 1)} %`;
}

/** Each figure's line, carrying the figure it draws (its total and parts are listed beside the charts). */
function widgetSeries(data: { period: Period; rows: WidgetRow[] }, figures: WidgetFigure[]): (ChartSeries & { figure: WidgetFigure })[] {
  return figures.map((figure) => ({
    label: figure.label,
    tone: figure.tone,
    figure,
    values: onBuckets(data.period, data.rows, (r) => r[figure.field]),
  }));
}

function Widget({ range }: { range: Range }) {
  // As above, the last period's figures stay until the next one's are in.
  const widget = useWidgetStats(range);
  const shown = widget.data?.period;
  const series = useMemo(
    () => widget.data && { challenges: widgetSeries(widget.data, CHALLENGE_FIGURES), nonces: widgetSeries(widget.data, NONCE_FIGURES) },
    [widget.data],
  );
  const rows = widget.data?.rows ?? [];
  const totals = series && [...series.challenges, ...series.nonces].map((s) => ({ ...s.figure, total: sum(s.values) }));
  const failed = sum(rows.map((r) => r.challengesFailed));
  const invalid = sum(rows.map((r) => r.noncesInvalid));
  /** One chart per stage, so that no chart has two lines of the same meaning (colour). */
  const chart = (lines: ChartSeries[], what: string) => {
    if (!shown) return null;
    const total = sum(lines.map((s) => sum(s.values)));
    if (total === 0) return <p>No {what.toLowerCase()} in this period.</p>;
    return (
      <TimeChart
        caption={`${what} per ${shown.grain} in the ${rangeLabel(shown)}: ${lines.map((s) => `${s.label.toLowerCase()} ${sum(s.values).toLocaleString()}`).join(', ')}.`}
        tableCaption={`${what} per ${shown.grain}`}
        times={shown.times}
        grain={shown.grain}
        series={lines}
        formatTime={timeLabel(shown.grain)}
      />
    );
  };
  return (
    <section className="panel" aria-labelledby="widget-title" aria-busy={widget.isPlaceholderData}>
      <h2 id="widget-title">Widget</h2>
      <p className="hint">
        Challenges your pages' widget keys handed out and took back, and the nonces your server's verify keys checked. A challenge failed
        when its solution was refused, or when a page outside the key's allowed origins asked for it.
      </p>
      <ErrorNote error={widget.error} />
      {widget.isPending && <p role="status">Loading widget figures…</p>}
      {series && totals && (
        <>
          <dl className="figures" data-testid="widget-totals">
            {totals.map((t) => (
              <div key={t.label}>
                <dt>{t.label}</dt>
                <dd>{t.total.toLocaleString()}</dd>
                <FigureParts figure={t} rows={rows} />
              </div>
            ))}
          </dl>
          {failed > 0 && (
            <p className="hint">
              A challenge failed as wrong or forged when what was sent did not solve it (or solved another key's), expired when it was
              solved but sent more than 5 minutes after it was handed out, already used when its solution was sent again (a form sent twice,
              or a replay), and page not allowed when a page outside the key's allowed origins asked for it.
            </p>
          )}
          {invalid > 0 && (
            <p className="hint">
              A nonce is unknown when Gatehouse did not issue it to this account (made up, damaged or another account's), expired when
              verified after its lifetime, already used when verified before (a replay).
            </p>
          )}
          {sum(totals.map((t) => t.total)) === 0 ? (
            <p>No widget activity in this period.</p>
          ) : (
            <>
              {chart(series.challenges, 'Challenges')}
              {chart(series.nonces, 'Nonces checked')}
            </>
          )}
        </>
      )}
    </section>
  );
}

/** The reasons beneath a figure that has them, from the rows of the period. */
function FigureParts({ figure, rows }: { figure: { field: WidgetField; label: string }; rows: readonly WidgetRow[] }) {
  const of = FIGURE_PARTS[figure.field];
  if (!of) return null;
  const parts = of.parts.map(({ field, label }) => ({ label, total: sum(rows.map((r) => r[field])) }));
  // Events counted before their reasons were kept are in the figure's total only.
  const untold = sum(rows.map((r) => r[figure.field])) - sum(parts.map((p) => p.total));
  if (untold > 0) parts.push({ label: 'Reason not recorded', total: untold });
  return (
    <dd>
      <ul className="figure-parts" aria-label={`${figure.label} by reason`} data-testid={of.testId}>
        {parts.map((p) => (
          <li key={p.label}>
            <span>{p.label}</span> <span className="number">{p.total.toLocaleString()}</span>
          </li>
        ))}
      </ul>
    </dd>
  );
}

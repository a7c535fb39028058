import { ReactNode, useMemo, useState } from 'react';
import {
  Caller,
  Grain,
  StatusClass,
  UsagePeriod,
  UsageRow,
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

const RANGES = {
  hour: { label: 'Last hour', grain: 'minute', step: 60_000, buckets: 60 },
  day: { label: 'Last 24 hours', grain: 'hour', step: 3_600_000, buckets: 24 },
  week: { label: 'Last 7 days', grain: 'day', step: 86_400_000, buckets: 7 },
} as const satisfies Record<string, { label: string; grain: Grain; step: number; buckets: number }>;
type RangeId = keyof typeof RANGES;

const STATUS_CLASSES: { id: StatusClass; label: string }[] = [
  { id: '2xx', label: '2xx success' },
  { id: '3xx', label: '3xx redirect' },
  { id: '4xx', label: '4xx refused' },
  { id: '5xx', label: '5xx server error' },
];
const WIDGET_FIGURES: { field: Exclude<keyof WidgetRow, 'key'>; label: string }[] = [
  { field: 'challengesIssued', label: 'Challenges issued' },
  { field: 'challengesSolved', label: 'Challenges solved' },
  { field: 'challengesFailed', label: 'Challenges failed' },
  { field: 'noncesValid', label: 'Nonces valid' },
  { field: 'noncesInvalid', label: 'Nonces invalid' },
];
const TOP = 10;

/** The period shown: whole buckets, the last one the current minute, hour or (UTC) day. */
interface Period extends UsagePeriod {
  readonly range: RangeId;
  /** Bucket starts, epoch milliseconds. */
  readonly times: number[];
}

function periodOf(range: RangeId, now = Date.now()): Period {
  const { grain, step, buckets } = RANGES[range];
  const end = Math.floor(now / step) * step + step;
  const start = end - buckets * step;
  const times = Array.from({ length: buckets }, (_, i) => start + i * step);
  return { range, grain, from: new Date(start).toISOString(), to: new Date(end).toISOString(), times };
}

/** The API's rows (only buckets with counts) on every bucket of the period, zero where it has none. */
function onBuckets<T extends { key: string }>(period: Period, rows: readonly T[], value: (row: T) => number): number[] {
  const byTime = new Map(rows.map((r) => [new Date(r.key).getTime(), value(r)]));
  return period.times.map((t) => byTime.get(t) ?? 0);
}

const rangeLabel = (period: Period) => RANGES[period.range].label.toLowerCase();
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
  const [period, setPeriod] = useState(() => periodOf('hour'));
  const [caller, setCaller] = useState<Caller>('apiKey');
  return (
    <>
      <PageTitle>Analytics</PageTitle>
      <p>
        Every answer of the API to {me.account.name} counts, refused ones too. Times are in your time zone
        {period.grain === 'day' ? '; days are UTC days' : ''}.
      </p>
      <form className="period" onSubmit={(e) => e.preventDefault()}>
        <fieldset>
          <legend>Period</legend>
          {(Object.keys(RANGES) as RangeId[]).map((id) => (
            <label key={id} className="inline-choice">
              <input type="radio" name="range" value={id} checked={period.range === id} onChange={() => setPeriod(periodOf(id))} />{' '}
              {RANGES[id].label}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Requests</legend>
          <label className="inline-choice">
            <input type="radio" name="caller" checked={caller === 'apiKey'} onChange={() => setCaller('apiKey')} /> With API keys (your
            pages and servers)
          </label>
          <label className="inline-choice">
            <input type="radio" name="caller" checked={caller === 'all'} onChange={() => setCaller('all')} /> All, this dashboard's included
          </label>
        </fieldset>
        <button type="button" onClick={() => setPeriod(periodOf(period.range))}>
          Refresh
        </button>
      </form>
      <Requests period={period} caller={caller} />
      <Breakdowns period={period} caller={caller} canListKeys={can.manageKeys(me.role)} />
      <Widget period={period} />
    </>
  );
}

function Requests({ period, caller }: { period: Period; caller: Caller }) {
  // The last period's chart stays until the next one's numbers are in (no flicker, "Show as table" stays open).
  const byClass = useStatusClassUsage(period, caller);
  const shown = byClass.data?.period;
  const series = useMemo<ChartSeries[] | undefined>(
    () =>
      byClass.data &&
      STATUS_CLASSES.map(({ id, label }, i) => ({
        label,
        values: onBuckets(byClass.data.period, byClass.data.byClass[id], (r) => r.count),
        tone: i,
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
            series={series}
            formatTime={timeLabel(shown.grain)}
          />
        </>
      )}
    </section>
  );
}

function Breakdowns({ period, caller, canListKeys }: { period: Period; caller: Caller; canListKeys: boolean }) {
  const endpoints = useUsage(period, 'endpoint', caller);
  // Grouped by key, only API-key traffic counts anyway.
  const byKey = useUsage(period, 'apiKey', 'apiKey');
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
    <div className="table-wrap">
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

function Widget({ period }: { period: Period }) {
  // As above, the last period's figures stay until the next one's are in.
  const widget = useWidgetStats(period);
  const shown = widget.data?.period;
  const series = useMemo<ChartSeries[] | undefined>(
    () =>
      widget.data &&
      WIDGET_FIGURES.map(({ field, label }, i) => ({
        label,
        values: onBuckets(widget.data.period, widget.data.rows, (r) => r[field]),
        tone: i,
      })),
    [widget.data],
  );
  const totals = series?.map((s) => ({ label: s.label, total: sum(s.values) }));
  return (
    <section className="panel" aria-labelledby="widget-title" aria-busy={widget.isPlaceholderData}>
      <h2 id="widget-title">Widget</h2>
      <p className="hint">Challenges your pages' widget keys handed out and took back, and the nonces your server's verify keys checked.</p>
      <ErrorNote error={widget.error} />
      {widget.isPending && <p role="status">Loading widget figures…</p>}
      {series && shown && totals && (
        <>
          <dl className="figures" data-testid="widget-totals">
            {totals.map((t) => (
              <div key={t.label}>
                <dt>{t.label}</dt>
                <dd>{t.total.toLocaleString()}</dd>
              </div>
            ))}
          </dl>
          {sum(totals.map((t) => t.total)) === 0 ? (
            <p>No widget activity in this period.</p>
          ) : (
            <TimeChart
              caption={`Widget figures per ${shown.grain} in the ${rangeLabel(shown)}: ${totals.map((t) => `${t.label.toLowerCase()} ${t.total.toLocaleString()}`).join(', ')}.`}
              tableCaption={`Widget figures per ${shown.grain}`}
              times={shown.times}
              series={series}
              formatTime={timeLabel(shown.grain)}
            />
          )}
        </>
      )}
    </section>
  );
}

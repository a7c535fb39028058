import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/errors';
import { useVerifyNonce } from '../api/nonces';
import { loadWidget } from '../widget';
import { Field } from './Field';

const STEPS = [
  { id: 'challenge', label: 'Challenge fetched' },
  { id: 'solved', label: 'Challenge solved' },
  { id: 'nonce', label: 'Nonce issued' },
  { id: 'verified', label: 'Nonce verified' },
  { id: 'spent', label: 'Nonce verified again: spent' },
] as const;

type StepId = (typeof STEPS)[number]['id'];
type Status = 'waiting' | 'running' | 'passed' | 'failed';
type Results = Record<StepId, { status: Status; detail?: string }>;

const fresh = (): Results => ({
  challenge: { status: 'running', detail: 'asking Gatehouse for a proof-of-work challenge…' },
  solved: { status: 'waiting' },
  nonce: { status: 'waiting' },
  verified: { status: 'waiting' },
  spent: { status: 'waiting' },
});

const STATUS_TEXT: Record<Status, string> = { waiting: 'waiting', running: 'running', passed: 'passed', failed: 'failed' };
const MARK: Record<Status, string> = { waiting: '○', running: '…', passed: '✓', failed: '✗' };

/** What the widget's `gatehouse:error` carries (docs/PROTECT-A-FORM.md, "4. Single-page apps"). */
interface WidgetError {
  code: string;
  message: string;
}

/** How long a run may take before its running step is reported failed (a solve takes about a second). */
const TIMEOUT_MS = 60_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * "Try it": the real widget, with `widgetKey`, solving a challenge in this page, then the nonce it
 * got verified twice with the verify key, as the customer's server would — each step's result shown.
 * The verify key comes from the onboarding that just made it, or is pasted here; it stays in this
 * component's memory, never stored.
 */
export function WidgetTrial({ widgetKey, verifyKey }: { widgetKey?: string; verifyKey?: string }) {
  const [pasted, setPasted] = useState('');
  const [run, setRun] = useState(0);
  const [results, setResults] = useState<Results | null>(null);
  const host = useRef<HTMLDivElement>(null);
  const verify = useVerifyNonce();
  const key = verifyKey ?? pasted.trim();

  const set = (step: StepId, status: Status, detail?: string) => setResults((r) => (r ? { ...r, [step]: { status, detail } } : r));

  useEffect(() => {
    const el = host.current;
    if (run === 0 || el === null || widgetKey === undefined) return;
    let current = true;
    const started = performance.now();
    let solvedAt: number | undefined;
    // The challenge request, seen in the page's resource timing: its status, whatever the widget does next.
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as PerformanceResourceTiming[]) {
        if (!current || !entry.name.includes('/api/v1/widget/challenge') || entry.startTime < started) continue;
        const ok = entry.responseStatus >= 200 && entry.responseStatus < 300;
        set('challenge', ok ? 'passed' : 'failed', `HTTP ${entry.responseStatus}`);
        if (ok) set('solved', 'running', 'your browser is doing the proof of work…');
      }
    });
    observer.observe({ type: 'resource' });
    // A widget that never answers (blocked by a browser extension, say) must not leave a step running for ever.
    const timeout = setTimeout(() => {
      setResults((r) => {
        const stuck = r && STEPS.find(({ id }) => r[id].status === 'running');
        return stuck ? { ...r, [stuck.id]: { status: 'failed', detail: `no result after ${TIMEOUT_MS / 1000} s` } } : r;
      });
    }, TIMEOUT_MS);

    const onError = (event: Event) => {
      if (!current) return;
      const { code, message } = (event as CustomEvent<WidgetError>).detail;
      const hint =
        code === 'insufficient_permissions'
          ? ` This page's origin (${window.location.origin}) is not one Gatehouse counts as its own: open the dashboard at Gatehouse's PUBLIC_URL.`
          : '';
      const text = `${code}: ${message}${hint}`;
      setResults((r) => {
        if (!r) return r;
        const step = solvedAt === undefined ? (r.challenge.status === 'passed' ? 'solved' : 'challenge') : 'nonce';
        return { ...r, [step]: { status: 'failed', detail: text } };
      });
    };
    const onVerified = (event: Event) => {
      if (!current) return;
      const { nonce, expiresAt } = (event as CustomEvent<{ nonce: string; expiresAt: string }>).detail;
      // Its start is the same for every nonce of an account (format and account id): its end tells runs apart.
      set('nonce', 'passed', `${nonce.slice(0, 4)}…${nonce.slice(-10)}, valid until ${new Date(expiresAt).toLocaleTimeString()}`);
      void check(nonce);
    };
    const check = async (nonce: string) => {
      if (key === '') {
        set('verified', 'failed', 'no verify key: create one above or paste one');
        return;
      }
      set('verified', 'running', 'POST /api/v1/nonces/verify…');
      try {
        const first = await verify.mutateAsync({ verifyKey: key, nonce });
        if (!current) return;
        if (!first.valid) {
          set('verified', 'failed', `valid: false (${first.reason})`);
          return;
        }
        set('verified', 'passed', `valid: true, solved on ${first.hostname ?? 'no page'} (this dashboard; on your site, your host)`);
        set('spent', 'running', 'the same nonce once more…');
        const second = await verify.mutateAsync({ verifyKey: key, nonce });
        if (!current) return;
        if (second.valid) set('spent', 'failed', 'valid: true — a nonce must count once');
        else set('spent', second.reason === 'already_used' ? 'passed' : 'failed', `valid: false (${second.reason}): a replay is refused`);
      } catch (error) {
        if (current)
          set('verified', 'failed', error instanceof ApiError ? `${error.code}: ${error.describe()}` : 'Gatehouse could not be reached.');
      }
    };
    el.addEventListener('gatehouse:error', onError);
    el.addEventListener('gatehouse:verified', onVerified);

    loadWidget().then(
      (gatehouse) => {
        if (!current) return;
        gatehouse.render(el);
        const altcha = el.querySelector<HTMLElement & { verify?: () => Promise<void> }>('altcha-widget');
        if (altcha === null) return;
        altcha.addEventListener('verified', () => {
          solvedAt = performance.now();
          // Solved means fetched, even before the resource timing entry arrives.
          setResults((r) => (r && r.challenge.status !== 'passed' ? { ...r, challenge: { status: 'passed' } } : r));
          set('solved', 'passed', `in ${seconds(solvedAt - started)}`);
          set('nonce', 'running', 'exchanging the solution for a nonce…');
        });
        // ALTCHA's component mounts a moment after its element is added, then says `load` (the widget
        // configures it then). On the first run the script's own start has mounted it already; on a
        // later one the script is loaded and the element is new, so the run starts on its `load`.
        const start = () => void altcha.verify?.();
        if (typeof altcha.verify === 'function') start();
        else altcha.addEventListener('load', start, { once: true });
      },
      (error: Error) => current && set('challenge', 'failed', error.message),
    );
    return () => {
      current = false;
      observer.disconnect();
      clearTimeout(timeout);
      el.removeEventListener('gatehouse:error', onError);
      el.removeEventListener('gatehouse:verified', onVerified);
    };
    // One run per click: the keys are read when it starts.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [run]);

  if (widgetKey === undefined) return <p>Create the widget key first (step 1).</p>;
  const passed = results !== null && STEPS.every(({ id }) => results[id].status === 'passed');
  const failed = results !== null && STEPS.some(({ id }) => results[id].status === 'failed');
  return (
    <div className="trial">
      <p>
        The widget runs right here with your widget key, as it will in your form; then this page verifies the nonce with your verify key, as
        your server will, twice.
      </p>
      {verifyKey === undefined && (
        <Field label="Verify key" hint="Paste a key with the verify scope: it stays in this page and is never stored.">
          {(props) => (
            <input
              {...props}
              type="password"
              autoComplete="off"
              spellCheck={false}
              value={pasted}
              onChange={(e) => setPasted(e.target.value)}
            />
          )}
        </Field>
      )}
      <p className="actions">
        <button
          type="button"
          className="primary"
          disabled={key === '' || (results !== null && !passed && !failed)}
          onClick={() => {
            setResults(fresh());
            setRun((n) => n + 1);
          }}
        >
          {run === 0 ? 'Try it' : 'Try it again'}
        </button>
      </p>
      {/* A new element per run: the widget renders an element once. */}
      {run > 0 && (
        <form className="trial-form" aria-label="Widget trial" onSubmit={(e) => e.preventDefault()}>
          <div key={run} ref={host} className="gatehouse-widget" data-key={widgetKey} />
        </form>
      )}
      {results && (
        <ol className="trial-steps" aria-label="Trial steps">
          {STEPS.map(({ id, label }) => (
            <li key={id} className={results[id].status} data-step={id}>
              <span aria-hidden="true" className="mark">
                {MARK[results[id].status]}
              </span>{' '}
              <strong>{label}</strong> <span className="visually-hidden">({STATUS_TEXT[results[id].status]})</span>
              {results[id].detail && <span className="detail"> — {results[id].detail}</span>}
            </li>
          ))}
        </ol>
      )}
      <p role="status">{passed ? 'Every step passed: the form is protected end to end.' : failed ? 'A step failed: see above.' : ''}</p>
    </div>
  );
}

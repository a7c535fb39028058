/**
 * ALTCHA's `<altcha-widget>` for the sign-up page, loaded only there (a dynamic import): its external
 * build (no `<style>` element: its stylesheet is a file, as the CSP wants) and its PBKDF2 solver
 * worker, built as a file under /assets (worker-src falls back to script-src 'self'; no blob: URL).
 */
import 'altcha/external';
import 'altcha/altcha.css';
import type { State } from 'altcha/types';
import workerUrl from 'altcha/workers/pbkdf2?worker&url';
import { challengeClock } from '../../../widget/src/challenge-clock';

for (const algorithm of ['PBKDF2/SHA-256', 'PBKDF2/SHA-384', 'PBKDF2/SHA-512'])
  $altcha.algorithms.set(algorithm, () => new Worker(workerUrl));

$altcha.defaults.set({
  // A solve is over when it is found: ALTCHA would otherwise pad it to 500 ms.
  minDuration: 0,
  // Its logo is a link inside aria-hidden (focusable but hidden from screen readers); the footer keeps the attribution.
  hideLogo: true,
  // Pointer and scroll recording for ALTCHA's own service, which Gatehouse does not ask for.
  humanInteractionSignature: false,
});

/** ALTCHA's states by name (its `State` is a const enum of these strings). */
type StateName = `${State}`;

/**
 * Renders `<altcha-widget>` for the sign-up challenge at `url` into `host`; `onSolved` gets the solution
 * while it is live, and null when there is none (unsolved, failed, expired). Returns the unmount.
 *
 * ALTCHA times a challenge by this browser's clock, which may be minutes off Gatehouse's: one ahead
 * said "expired" while it solved, one behind kept a dead solution in the form until the sign-up was
 * refused. Gatehouse's clock decides here, read off each challenge as the widget script does.
 */
export function renderSignupChallenge(host: HTMLElement, url: string, onSolved: (payload: string | null) => void): () => void {
  const widget = document.createElement('altcha-widget');
  let offset = 0; // Gatehouse's clock minus this browser's, ms
  let expiresAt = 0; // the challenge's end by Gatehouse's clock, ms; 0 until one is read
  let previous: StateName = 'unverified';
  let expiry: ReturnType<typeof setTimeout> | undefined;
  const gatehouseNow = () => Date.now() + offset;

  async function timedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const sentAt = Date.now();
    const res = await fetch(input, init);
    const body: unknown = await res
      .clone()
      .json()
      .catch(() => undefined);
    const clock = challengeClock(body, (sentAt + Date.now()) / 2); // read halfway through the request
    if (clock !== undefined) ({ offset, expiresAt } = clock);
    return res;
  }

  widget.setAttribute('challenge', url);
  widget.setAttribute('name', 'altcha');
  widget.setAttribute('auto', 'onfocus');
  widget.addEventListener('load', () => void widget.configure({ fetch: timedFetch }), { once: true });
  widget.addEventListener('statechange', (ev) => {
    const { state, payload } = (ev as CustomEvent<{ state: StateName; payload?: string }>).detail;
    const before = previous;
    previous = state;
    clearTimeout(expiry);
    if (state === 'expired' && expiresAt > gatehouseNow() && (before === 'verifying' || before === 'verified')) {
      widget.setState(before as State); // ALTCHA's timer went off early by this browser's clock
      return;
    }
    const live = state === 'verified' && payload ? payload : null;
    if (live !== null && expiresAt > 0) expiry = setTimeout(() => widget.reset('expired' as State), expiresAt - gatehouseNow());
    onSolved(live);
  });
  host.append(widget);
  return () => {
    clearTimeout(expiry);
    widget.remove();
  };
}

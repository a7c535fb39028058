/**
 * The Gatehouse widget (docs/PROTECT-A-FORM.md): one classic script that renders ALTCHA's
 * `<altcha-widget>` in every `.gatehouse-widget` element, lets it solve Gatehouse's proof-of-work
 * challenge in its own workers, exchanges the solution for a single-use nonce and puts the nonce in
 * the element's form.
 *
 * Built by `npm run build:widget` (widget/vite.config.mts) into dist/widget/gatehouse.js and served
 * at /widget/v1/gatehouse.js. The API is found from this script's own URL.
 *
 * Nothing here solves anything: ALTCHA's external build is the widget and its worker.js the solver.
 * The external build is used, not ALTCHA's default bundle, because the default one injects a
 * `<style>` element (a customer's CSP would need style-src 'unsafe-inline'); here its stylesheet is
 * adopted through CSSOM instead, and its worker started from a blob: URL as the default bundle does.
 */
import 'altcha/external';
import altchaCss from 'altcha/altcha.css?inline';
import altchaWorker from 'altcha/worker?raw';

type AltchaElement = HTMLElement & AltchaWidgetMethods & AltchaWidgetOptions;

/** What `gatehouse:verified` carries. */
export interface VerifiedDetail {
  readonly nonce: string;
  readonly expiresAt: string;
}

/** What `gatehouse:error` carries: the API's error code (docs/API.md, "Errors") or one of the widget's own. */
export interface ErrorDetail {
  readonly code: string;
  readonly message: string;
  readonly status?: number;
}

const SCRIPT_PATH = '/widget/v1/gatehouse.js';
const DEFAULT_FIELD = 'gatehouse-nonce';
const AUTO = ['off', 'onfocus', 'onload', 'onsubmit'] as const;
const RENDERED = 'gatehouseRendered';

/** `https://gatehouse.example.com/` from `https://gatehouse.example.com/widget/v1/gatehouse.js` (a path prefix is kept). */
function apiBase(): URL {
  const script =
    (document.currentScript as HTMLScriptElement | null) ?? document.querySelector<HTMLScriptElement>(`script[src*="${SCRIPT_PATH}"]`);
  if (script === null || script.src === '') throw new Error('Gatehouse: cannot tell where gatehouse.js was loaded from');
  return new URL('../../', script.src);
}

const BASE = apiBase();
const CHALLENGE_URL = new URL('api/v1/widget/challenge', BASE).href;
const NONCES_URL = new URL('api/v1/widget/nonces', BASE).href;

const OWN_CSS =
  '.gatehouse-sr-only{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}';

/** ALTCHA's stylesheet and ours, adopted (no `<style>` element: CSP style-src needs nothing for it). */
function installStyles(): void {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(altchaCss + OWN_CSS);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  } catch {
    // A browser without constructable stylesheets (Safari < 16.4): a style element.
    const style = document.createElement('style');
    style.textContent = altchaCss + OWN_CSS;
    document.head.append(style);
  }
}

/**
 * ALTCHA splits the search between several workers and, once one finds the number, posts the
 * others an abort message. In Chromium that message waits behind the worker's own loop of
 * crypto.subtle.digest calls until its whole share is searched, so every solve lasted as long as
 * the slowest share, wherever the number was. Terminating the worker instead,
 * and answering for it what an aborted worker answers (null), ends the search when it is found.
 */
class PromptlyAbortedWorker extends Worker {
  override postMessage(message: unknown, options?: StructuredSerializeOptions | Transferable[]): void {
    if ((message as { type?: unknown } | null)?.type !== 'abort') return super.postMessage(message, options as StructuredSerializeOptions);
    this.terminate();
    this.dispatchEvent(new MessageEvent('message', { data: null }));
  }
}

/** ALTCHA's own worker script, started from one blob: URL (CSP: worker-src blob:). */
function installWorker(): void {
  const url = URL.createObjectURL(new Blob([altchaWorker], { type: 'text/javascript' }));
  globalThis.altchaCreateWorker = () => new PromptlyAbortedWorker(url);
}

/** The error code of an API error body (`{statusCode, error, message, requestId}`, docs/API.md "Errors"), if it is one. */
function errorCodeOf(body: unknown): string | undefined {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  return typeof error === 'string' ? error : undefined;
}

const readJson = (res: Response): Promise<unknown> => res.json().catch(() => undefined);

/** The form of the element's widget, its nonce field, and the screen-reader announcements. */
class GatehouseWidget {
  private readonly altcha: AltchaElement;
  private readonly field: HTMLInputElement;
  private readonly status: HTMLElement;
  private readonly alert: HTMLElement;
  /** The API's refusal of the last challenge request, reported when ALTCHA turns it into its error state. */
  private challengeError?: ErrorDetail;
  /** The exchange of a solution for a nonce, while it runs: a submit waits for it. */
  private exchange?: Promise<boolean>;
  /** Set while this class puts ALTCHA into a state itself, so its own statechange is not reported twice. */
  private settingState = false;

  constructor(
    private readonly host: HTMLElement,
    private readonly key: string,
  ) {
    this.field = document.createElement('input');
    this.field.type = 'hidden';
    this.field.name = host.dataset.field || DEFAULT_FIELD;
    this.status = this.liveRegion('status', 'polite');
    this.alert = this.liveRegion('alert', 'assertive');

    this.altcha = document.createElement('altcha-widget') as AltchaElement;
    this.altcha.setAttribute('challengeurl', CHALLENGE_URL);
    // ALTCHA's own hidden field (the raw solution) is of no use to the customer's server: without
    // a name it is left out of the form's submission and of `new FormData(form)`.
    this.altcha.setAttribute('name', '');
    this.altcha.setAttribute('credentials', 'omit');
    // When a challenge (or, once exchanged, the nonce) expires, the visitor checks the box again:
    // no background re-solving, which would spend the key's allowance for idle pages.
    this.altcha.setAttribute('disablerefetchonexpire', 'true');
    // ALTCHA's logo is a link inside aria-hidden: focusable yet hidden from screen readers (axe: serious).
    // Its footer ("Protected by ALTCHA") keeps the attribution.
    this.altcha.setAttribute('hidelogo', '');
    const auto = host.dataset.auto as (typeof AUTO)[number] | undefined;
    if (auto !== undefined && AUTO.includes(auto)) this.altcha.setAttribute('auto', auto);
    this.altcha.customfetch = (url, init) => this.fetchWithKey(url, init, url === CHALLENGE_URL);

    this.altcha.addEventListener('statechange', (ev) => this.onStateChange((ev as AltchaStateChangeEvent).detail.state));
    this.altcha.addEventListener('verified', (ev) => void this.redeem((ev as AltchaVerifiedEvent).detail.payload));
    host.closest('form')?.addEventListener('submit', (ev) => this.holdSubmit(ev), { capture: true });
    host.append(this.altcha, this.field, this.status, this.alert);
  }

  private liveRegion(role: 'status' | 'alert', live: 'polite' | 'assertive'): HTMLElement {
    const el = document.createElement('span');
    el.className = 'gatehouse-sr-only';
    el.setAttribute('role', role);
    el.setAttribute('aria-live', live);
    return el;
  }

  private announce(text: string, region = this.status): void {
    this.status.textContent = '';
    this.alert.textContent = '';
    region.textContent = text;
  }

  /** fetch with the widget's key; a refused challenge request is remembered with the API's error code. */
  private async fetchWithKey(url: string, init: RequestInit | undefined, isChallenge: boolean): Promise<Response> {
    const headers = new Headers(init?.headers);
    headers.set('X-Api-Key', this.key);
    const res = await fetch(url, { ...init, headers, credentials: 'omit', mode: 'cors' });
    if (isChallenge) {
      this.challengeError = res.ok
        ? undefined
        : {
            code: errorCodeOf(await readJson(res.clone())) ?? 'challenge_unavailable',
            message: `The challenge request was refused (${res.status}).`,
            status: res.status,
          };
    }
    return res;
  }

  private onStateChange(state: AltchaState): void {
    if (state !== 'verified') this.field.value = '';
    if (this.settingState) return;
    if (state === 'verifying') this.announce('Verifying that you are not a robot…');
    else if (state === 'expired') this.announce('The verification expired. Check the box again.', this.alert);
    else if (state === 'error') {
      this.fail(this.challengeError ?? { code: 'verification_failed', message: 'The challenge could not be fetched or solved.' }, false);
    }
  }

  /** ALTCHA solved the challenge: exchange its payload for a nonce. */
  private redeem(payload: string): Promise<boolean> {
    this.exchange = this.requestNonce(payload).finally(() => {
      this.exchange = undefined;
    });
    return this.exchange;
  }

  private async requestNonce(payload: string): Promise<boolean> {
    let res: Response;
    try {
      res = await this.fetchWithKey(
        NONCES_URL,
        { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ altcha: payload }) },
        false,
      );
    } catch {
      this.fail({ code: 'network_error', message: 'Gatehouse could not be reached.' }, true);
      return false;
    }
    const body = (await readJson(res)) as Partial<VerifiedDetail> | undefined;
    if (res.status !== 201 || typeof body?.nonce !== 'string' || typeof body.expiresAt !== 'string') {
      this.fail(
        { code: errorCodeOf(body) ?? 'nonce_refused', message: `The solution was refused (${res.status}).`, status: res.status },
        true,
      );
      return false;
    }
    const detail: VerifiedDetail = { nonce: body.nonce, expiresAt: body.expiresAt };
    this.field.value = detail.nonce;
    // From now on the nonce's lifetime, not the challenge's, decides when the widget expires.
    this.altcha.configure({ expire: Math.max(1, Date.parse(detail.expiresAt) - Date.now()) });
    this.announce('Verified. You can submit the form.');
    this.host.dispatchEvent(new CustomEvent<VerifiedDetail>('gatehouse:verified', { bubbles: true, detail }));
    return true;
  }

  /** Reports a failure: the event, the screen-reader alert and, when ALTCHA does not know yet, its error state. */
  private fail(detail: ErrorDetail, setAltchaState: boolean): void {
    this.field.value = '';
    if (setAltchaState) {
      this.settingState = true;
      try {
        this.altcha.setState('error', `Verification failed: ${detail.code}`);
      } finally {
        this.settingState = false;
      }
    }
    this.announce(`Verification failed (${detail.code}). Check the box to try again.`, this.alert);
    this.host.dispatchEvent(new CustomEvent<ErrorDetail>('gatehouse:error', { bubbles: true, detail }));
  }

  /** A submit while the nonce is on its way waits for it (a few milliseconds), then goes ahead if it came. */
  private holdSubmit(ev: SubmitEvent): void {
    const pending = this.exchange;
    if (pending === undefined) return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    const form = ev.target as HTMLFormElement;
    void pending.then((ok) => {
      if (ok) form.requestSubmit(ev.submitter);
    });
  }
}

declare global {
  interface Window {
    Gatehouse: { readonly version: 'v1'; render(target?: Element | Document): void };
  }
}

/** Renders the widget in `target` when it is a `.gatehouse-widget` element, else in every one inside it; once per element. */
function render(target: Element | Document = document): void {
  const elements =
    target instanceof HTMLElement && target.matches('.gatehouse-widget')
      ? [target]
      : [...target.querySelectorAll<HTMLElement>('.gatehouse-widget')];
  for (const el of elements) {
    if (el.dataset[RENDERED] !== undefined) continue;
    const key = el.dataset.key;
    if (key === undefined || key === '') {
      console.error('Gatehouse: a .gatehouse-widget element needs data-key (a widget-scoped API key)', el);
      el.dispatchEvent(
        new CustomEvent<ErrorDetail>('gatehouse:error', {
          bubbles: true,
          detail: { code: 'missing_key', message: 'data-key is missing.' },
        }),
      );
      continue;
    }
    el.dataset[RENDERED] = '';
    new GatehouseWidget(el, key);
  }
}

installStyles();
installWorker();
window.Gatehouse = Object.freeze({ version: 'v1' as const, render });
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => render());
else render();

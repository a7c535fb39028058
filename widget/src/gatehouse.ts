/**
 * The Gatehouse widget (docs/PROTECT-A-FORM.md): one classic script that renders ALTCHA's
 * `<altcha-widget>` in every `.gatehouse-widget` element, lets it solve Gatehouse's proof-of-work
 * challenge (ALTCHA v2, PBKDF2/SHA-256) in ALTCHA's own workers, exchanges the solution for a
 * single-use nonce and puts the nonce in the element's form.
 *
 * Built by `npm run build:widget` (widget/vite.config.mts) into dist/widget/gatehouse.js and served
 * at /widget/v1/gatehouse.js. The API is found from this script's own URL.
 *
 * Nothing here solves anything: ALTCHA's external build is the widget and its PBKDF2 worker the
 * solver. The external build is used, not ALTCHA's default bundle, because the default one injects
 * a `<style>` element (a customer's CSP would need style-src 'unsafe-inline'); here its stylesheet
 * is adopted through CSSOM instead, and its worker started from a blob: URL (worker-src blob:).
 */
import 'altcha/external';
// As published (?raw, not ?inline): the build's CSS lowering would turn its light-dark() colours into
// variables only a color-scheme rule of the same build defines, leaving borders and colours invalid.
import altchaCss from 'altcha/altcha.css?raw';
import pbkdf2Worker from 'altcha/workers/pbkdf2?raw';
import type { Configuration, State, Strings } from 'altcha/types';
import { challengeClock } from './challenge-clock';
import { reasonText } from './reasons';
// ALTCHA's translations of its texts; English is built in. The page's <html lang>, or data-lang,
// picks one (a language without its own file falls back to English).
import 'altcha/i18n/ar';
import 'altcha/i18n/de';
import 'altcha/i18n/es-es';
import 'altcha/i18n/fr-fr';
import 'altcha/i18n/it';
import 'altcha/i18n/ja';
import 'altcha/i18n/nl';
import 'altcha/i18n/pl';
import 'altcha/i18n/pt-br';
import 'altcha/i18n/pt-pt';
import 'altcha/i18n/zh-cn';
import 'altcha/i18n/zh-tw';

type AltchaElement = HTMLElementTagNameMap['altcha-widget'];
/** ALTCHA's states by name (its `State` is a const enum of these strings). */
type StateName = `${State}`;

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
/** A second submit with a nonce already sent, sooner than this (ms), is a double click, not a resend. */
const RESEND_AFTER_MS = 2000;
const THEMES = ['light', 'dark', 'auto'];
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

/**
 * Ours, after ALTCHA's: the visible reason of a failure under the box; `color-scheme` from
 * data-theme (ALTCHA's colours are `light-dark()` pairs); a focus ring on the checkbox; the check
 * mark and spinner let clicks through to the checkbox under them; ALTCHA's own error bubble (a
 * generic "try again later") gives way to the reason.
 */
const OWN_CSS = `
.gatehouse-widget{display:block}
.gatehouse-widget[data-theme=light]{color-scheme:light}
.gatehouse-widget[data-theme=dark]{color-scheme:dark}
.gatehouse-widget[data-theme=auto]{color-scheme:light dark}
.gatehouse-widget .altcha-checkbox svg,.gatehouse-widget .altcha-checkbox-spinner{pointer-events:none}
.gatehouse-widget .altcha-checkbox input:focus-visible{outline:2px solid light-dark(#1d4ed8,#93c5fd);outline-offset:2px}
.gatehouse-widget .altcha-popover[data-variant=error]{display:none}
.gatehouse-widget .altcha-footer strong{font-weight:600}
.gatehouse-reason{box-sizing:border-box;max-width:var(--altcha-max-width,320px);margin:.25rem 0 0;padding:.4rem .75rem;border-radius:var(--altcha-border-radius,6px);background:var(--altcha-color-error,#b91c1c);color:var(--altcha-color-error-content,#fff);font-size:.85rem;line-height:1.3}
.gatehouse-reason:empty{display:none}
.gatehouse-sr-only{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}`;

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

/** ALTCHA's PBKDF2 worker script, as one blob: URL (CSP: worker-src blob:). */
let workerUrl = '';
/** Workers started ahead of a solve (warmWorkers), handed to ALTCHA before new ones. */
const spareWorkers: Worker[] = [];

/** ALTCHA's PBKDF2 worker for the algorithms it solves: a spare one if started ahead, else a new one. */
function installWorker(): void {
  workerUrl = URL.createObjectURL(new Blob([pbkdf2Worker], { type: 'text/javascript' }));
  const take = () => spareWorkers.pop() ?? new Worker(workerUrl);
  for (const algorithm of ['PBKDF2/SHA-256', 'PBKDF2/SHA-384', 'PBKDF2/SHA-512']) $altcha.algorithms.set(algorithm, take);
}

/**
 * Starts, ahead of the click, as many workers as ALTCHA will use for a solve (its own rule: every
 * core, at most 4 on a device with 4 GB of memory or less, at most 16). A worker's start (tens of
 * milliseconds, more on a busy phone) then passes while the visitor's pointer or focus travels to
 * the box, not after the click. Workers left unused stay idle (no work, ~1 MB each) until the page goes.
 */
function warmWorkers(): void {
  if (spareWorkers.length > 0) return;
  const cores = navigator.hardwareConcurrency || 2;
  const memory = (navigator as Navigator & { deviceMemory?: number }).deviceMemory;
  const count = Math.min(16, memory !== undefined && memory <= 4 ? Math.min(4, cores) : cores);
  for (let i = 0; i < count; i++) spareWorkers.push(new Worker(workerUrl));
}

/** ALTCHA's translations of its texts, by its language codes (`en`, `de`, `pt-br`…). */
function altchaTexts(): Record<string, Record<string, string>> {
  let all: Record<string, Record<string, string>> = {};
  $altcha.i18n.store.subscribe((value) => (all = value))();
  return all;
}

/** Every translation's footer names Gatehouse first; ALTCHA's own credit ("Protected by ALTCHA", translated) follows. */
function brandFooters(): void {
  for (const [language, strings] of Object.entries(altchaTexts())) {
    if (strings.footer?.startsWith('<strong>Gatehouse</strong>')) continue;
    $altcha.i18n.set(language, { ...strings, footer: `<strong>Gatehouse</strong> · ${strings.footer ?? ''}` });
  }
}

/** The API's error body (`{statusCode, error, message, requestId}`, docs/API.md "Errors"), if it is one. */
interface ApiErrorBody {
  readonly error?: unknown;
  readonly message?: unknown;
  readonly requestId?: unknown;
}

const readJson = (res: Response): Promise<unknown> => res.json().catch(() => undefined);

/** A refused request as the widget reports it: the API's code, and its message on the console for the site's owner. */
function refusal(res: Response, body: unknown, fallbackCode: string, what: string): ErrorDetail {
  const b = (typeof body === 'object' && body !== null ? body : {}) as ApiErrorBody;
  const code = typeof b.error === 'string' ? b.error : fallbackCode;
  const apiMessage = typeof b.message === 'string' ? b.message : `${what} was refused`;
  const requestId = typeof b.requestId === 'string' ? `, request ${b.requestId}` : '';
  // A key without the widget scope in data-key is most often the server's verify key: a secret, now in a page.
  const hint = apiMessage.includes('"widget" scope')
    ? ' data-key must be a widget key. If this is your verify key, it is a server secret that has been in a page: revoke it and make a new one.'
    : '';
  console.error(`Gatehouse: ${apiMessage} (${code}, HTTP ${res.status}${requestId})${hint}`);
  return { code, message: apiMessage, status: res.status };
}

/** The form of the element's widget, its nonce field, and what the visitor reads and hears. */
class GatehouseWidget {
  private readonly altcha: AltchaElement;
  private readonly field: HTMLInputElement;
  private readonly status: HTMLElement;
  private readonly reason: HTMLElement;
  private readonly form: HTMLFormElement | null;
  private readonly auto: (typeof AUTO)[number];
  /** The API's refusal of the last challenge request, reported when ALTCHA turns it into its error state. */
  private challengeError?: ErrorDetail;
  /** The exchange of a solution for a nonce, while it runs: a submit waits for it. */
  private exchange?: Promise<boolean>;
  /** A state this class put ALTCHA into itself, whose statechange is not to be handled again. */
  private ownState?: StateName;
  /**
   * The API's clock minus this browser's, in ms, from the last challenge's issue time. The expiries
   * below are the API's times: a visitor's clock some minutes fast made every nonce look expired
   * on arrival, and one that is slow kept a dead nonce in the form.
   */
  private clockOffset = 0;
  /** Until when the last challenge may be redeemed (the API's time, ms). */
  private challengeExpiresAt = 0;
  /** The state ALTCHA reported before the current one. */
  private previousState?: StateName;
  /** The nonce in the field, until when (the API's time, ms); ALTCHA only knows the challenge's expiry. */
  private nonceExpiresAt = 0;
  private nonceTimer?: ReturnType<typeof setTimeout>;
  /** The button a submit is being attempted with, for the instant of its activation (see trackSubmitter). */
  private submitter?: HTMLElement | null;
  /** A submit made while the work ran: sent once the nonce is in. */
  private pendingSubmit?: { submitter: HTMLElement | null };
  /** The nonce the form was last submitted with, and when (performance.now()). */
  private sent?: { nonce: string; at: number };

  constructor(
    private readonly host: HTMLElement,
    private readonly key: string,
  ) {
    this.form = host.closest('form');
    this.field = document.createElement('input');
    this.field.type = 'hidden';
    this.field.name = host.dataset.field || DEFAULT_FIELD;
    this.status = document.createElement('span');
    this.status.className = 'gatehouse-sr-only';
    this.status.setAttribute('role', 'status');
    this.reason = document.createElement('p');
    this.reason.className = 'gatehouse-reason';
    this.reason.setAttribute('role', 'alert');
    if (host.dataset.theme !== undefined && !THEMES.includes(host.dataset.theme)) delete host.dataset.theme;
    const auto = host.dataset.auto as (typeof AUTO)[number] | undefined;
    this.auto = auto !== undefined && AUTO.includes(auto) ? auto : 'off';

    this.altcha = document.createElement('altcha-widget');
    this.altcha.setAttribute('challenge', CHALLENGE_URL);
    // ALTCHA's own hidden field (the raw solution) is of no use to the customer's server: without
    // a name it is left out of the form's submission and of `new FormData(form)`.
    this.altcha.setAttribute('name', '');
    this.altcha.setAttribute('auto', this.auto);
    if (host.dataset.lang) this.altcha.setAttribute('language', host.dataset.lang);
    // Options that are not attributes: set once ALTCHA's component exists (its `load`), before any work can start.
    this.altcha.addEventListener('load', () => void this.altcha.configure(this.configuration()), { once: true });
    this.altcha.addEventListener('statechange', (ev) => this.onStateChange((ev as CustomEvent<{ state: State }>).detail.state));
    this.altcha.addEventListener('verified', (ev) => void this.redeem((ev as CustomEvent<{ payload: string }>).detail.payload));
    host.addEventListener('invalid', (ev) => this.onInvalid(ev), { capture: true });
    host.addEventListener('keydown', (ev) => this.onKeyDown(ev));
    this.form?.addEventListener('click', (ev) => this.trackSubmitter(ev), { capture: true });
    this.form?.addEventListener('submit', (ev) => this.holdSubmit(ev), { capture: true });
    // A visitor heading for the box (or into the form) is about to start a solve: its workers start now.
    const intent = () => {
      if (['unverified', 'expired', 'error'].includes(this.state())) warmWorkers();
    };
    for (const type of ['pointerenter', 'touchstart']) host.addEventListener(type, intent, { passive: true });
    (this.form ?? host).addEventListener('focusin', intent);
    host.append(this.altcha, this.field, this.reason, this.status);
  }

  private configuration(): Partial<Configuration> {
    return {
      fetch: (url, init) => this.fetchChallenge(url, init),
      credentials: 'omit',
      // A solve is over when it is found: ALTCHA would otherwise pad it to 500 ms.
      minDuration: 0,
      // ALTCHA's logo is a link inside aria-hidden: focusable yet hidden from screen readers (axe: serious).
      hideLogo: true,
      // Pointer and scroll recording for ALTCHA's own service, which Gatehouse does not ask for.
      humanInteractionSignature: false,
    };
  }

  private announce(text: string): void {
    this.status.textContent = text;
  }

  private showReason(text: string): void {
    this.status.textContent = '';
    this.reason.textContent = text;
  }

  /** ALTCHA's texts in the language it shows. */
  private strings(): Strings {
    return altchaTexts()[this.language()] as unknown as Strings;
  }

  /** ALTCHA's code of the language it shows (its own choice: data-lang, <html lang>, the browser's languages; else English). */
  private language(): string {
    const codes = Object.keys(altchaTexts());
    for (const wanted of [this.host.dataset.lang, document.documentElement.lang, ...navigator.languages]) {
      if (!wanted) continue;
      const lang = wanted.toLowerCase();
      const code = codes.includes(lang) ? lang : codes.find((c) => c.split('-')[0] === lang.split('-')[0]);
      if (code !== undefined) return code;
    }
    return 'en';
  }

  /**
   * ALTCHA's challenge request, with the widget's key; a refusal is remembered with the API's error
   * code, a challenge's issue and expiry times as the API's clock.
   */
  private async fetchChallenge(url: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const headers = new Headers(init?.headers);
    headers.set('X-Api-Key', this.key);
    this.challengeError = undefined;
    const sentAt = Date.now();
    let res: Response;
    try {
      res = await fetch(url, { ...init, headers, credentials: 'omit', mode: 'cors' });
    } catch (err) {
      console.error('Gatehouse: the challenge request failed', err);
      this.challengeError = { code: 'network_error', message: 'Gatehouse could not be reached.' };
      throw err;
    }
    const body = await readJson(res.clone());
    if (!res.ok) this.challengeError = refusal(res, body, 'challenge_unavailable', 'The challenge request');
    else {
      // The API's clock, taken as read halfway through the request.
      const clock = challengeClock(body, (sentAt + Date.now()) / 2);
      if (clock !== undefined) ({ offset: this.clockOffset, expiresAt: this.challengeExpiresAt } = clock);
    }
    return res;
  }

  /** Now, by the API's clock. */
  private apiNow(): number {
    return Date.now() + this.clockOffset;
  }

  private onStateChange(state: StateName): void {
    const previous = this.previousState;
    this.previousState = state;
    if (state !== 'verified') this.field.value = '';
    // ALTCHA reports a state this class set itself a moment later (its events wait for a tick).
    if (state === this.ownState) {
      this.ownState = undefined;
      return;
    }
    if (state === 'verifying') {
      this.reason.textContent = '';
      this.announce(this.strings().verifying);
    } else if (state === 'unverified') {
      this.clearNonce();
      this.reason.textContent = '';
      this.announce('');
    } else if (state === 'expired') {
      // ALTCHA times the challenge by this browser's clock, which may be minutes off the API's: the
      // API's decides. Once exchanged, the nonce's own lifetime is what counts.
      const now = this.apiNow();
      if (this.nonceExpiresAt > now || (this.exchange !== undefined && this.challengeExpiresAt > now)) this.setAltchaState('verified');
      else if (previous === 'verifying' && this.challengeExpiresAt > now) this.setAltchaState('verifying');
      else this.expired();
    } else if (state === 'error') {
      this.fail(this.challengeError ?? { code: 'verification_failed', message: 'The challenge could not be fetched or solved.' }, false);
    }
  }

  /** The nonce (or the challenge before it) expired: the visitor checks the box again; nothing is solved in the background. */
  private expired(): void {
    this.clearNonce();
    if (this.state() !== 'expired') this.setAltchaState('expired');
    this.showReason(this.strings().expired);
    this.host.dispatchEvent(new CustomEvent('gatehouse:expired', { bubbles: true }));
  }

  /** ALTCHA's state; `unverified` until its component has mounted (a moment after the element is added). */
  private state(): StateName {
    return typeof this.altcha.getState === 'function' ? this.altcha.getState() : 'unverified';
  }

  /** ALTCHA's state; `verified` and `verifying` leave its work and payload as they are, the others reset it. */
  private setAltchaState(state: StateName, error?: string): void {
    this.ownState = state;
    if (state === 'verified' || state === 'verifying') this.altcha.setState(state as State);
    else this.altcha.reset(state as State, error ?? null);
  }

  private clearNonce(): void {
    clearTimeout(this.nonceTimer);
    this.nonceExpiresAt = 0;
    this.field.value = '';
  }

  /** ALTCHA solved the challenge: exchange its payload for a nonce, unless the page has removed the widget meanwhile. */
  private redeem(payload: string): Promise<boolean> {
    if (!this.host.isConnected) return Promise.resolve(false);
    this.exchange = this.requestNonce(payload).finally(() => {
      this.exchange = undefined;
    });
    return this.exchange;
  }

  private async requestNonce(payload: string): Promise<boolean> {
    let res: Response;
    try {
      res = await fetch(NONCES_URL, {
        method: 'POST',
        headers: { 'X-Api-Key': this.key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ altcha: payload }),
        credentials: 'omit',
        mode: 'cors',
      });
    } catch (err) {
      console.error('Gatehouse: the nonce request failed', err);
      this.fail({ code: 'network_error', message: 'Gatehouse could not be reached.' }, true);
      return false;
    }
    const body = (await readJson(res)) as Partial<VerifiedDetail> | undefined;
    if (res.status !== 201 || typeof body?.nonce !== 'string' || typeof body.expiresAt !== 'string') {
      this.fail(refusal(res, body, 'nonce_refused', 'The solution'), true);
      return false;
    }
    const detail: VerifiedDetail = { nonce: body.nonce, expiresAt: body.expiresAt };
    this.field.value = detail.nonce;
    this.nonceExpiresAt = Date.parse(detail.expiresAt);
    clearTimeout(this.nonceTimer);
    this.nonceTimer = setTimeout(() => this.expired(), Math.max(0, this.nonceExpiresAt - this.apiNow()));
    this.reason.textContent = '';
    this.announce(`${this.strings().verified}.`);
    this.host.dispatchEvent(new CustomEvent<VerifiedDetail>('gatehouse:verified', { bubbles: true, detail }));
    const pending = this.pendingSubmit;
    this.pendingSubmit = undefined;
    if (pending !== undefined && this.form !== null) this.form.requestSubmit(this.submitterOf(pending.submitter));
    return true;
  }

  /** Reports a failure: the event, the visible reason and, when ALTCHA does not know yet, its error state. */
  private fail(detail: ErrorDetail, setAltchaState: boolean): void {
    this.clearNonce();
    this.pendingSubmit = undefined;
    if (setAltchaState) this.setAltchaState('error', `${detail.code}: ${detail.message}`);
    // A solution refused because its challenge ran out while it was solved (a tab in the
    // background, a laptop asleep) is no refusal of the visitor's work: it says expired.
    const ranOut = detail.code === 'challenge_failed' && this.challengeExpiresAt > 0 && this.challengeExpiresAt <= this.apiNow();
    this.showReason(ranOut ? this.strings().expired : reasonText(detail.code, this.language()));
    this.host.dispatchEvent(new CustomEvent<ErrorDetail>('gatehouse:error', { bubbles: true, detail }));
  }

  private checkbox(): HTMLInputElement | null {
    return this.altcha.querySelector<HTMLInputElement>('input[type="checkbox"]');
  }

  /** Enter starts the check too (Space does, as on any checkbox), and does not send the form from the box. */
  private onKeyDown(ev: KeyboardEvent): void {
    const box = this.checkbox();
    if (ev.key !== 'Enter' || box === null || ev.target !== box) return;
    ev.preventDefault();
    const state = this.state();
    if (state !== 'verified' && state !== 'verifying') box.click();
  }

  /**
   * The button a submit is attempted with: a click on it (also the one implicit submission, Enter
   * in a field, makes) runs the form's validation and submit in the same task, right after this.
   */
  private trackSubmitter(ev: MouseEvent): void {
    const button = (ev.target as Element | null)?.closest?.('button, input');
    if (!(button instanceof HTMLButtonElement || button instanceof HTMLInputElement)) return;
    if (button.form !== this.form || (button.type !== 'submit' && button.type !== 'image')) return;
    this.submitter = button;
    setTimeout(() => (this.submitter = undefined));
  }

  private submitterOf(button: HTMLElement | null): HTMLElement | null {
    return button !== null && button.isConnected && (button as HTMLButtonElement).form === this.form ? button : null;
  }

  /**
   * The box is a required field until verified. The browser's own bubble would cover the widget's
   * text: the widget says it itself. A submit while the work runs is sent once the nonce is in. With
   * `onfocus` or `onload` the work is the widget's to start: a submit made without a nonce (it
   * expired, or the last check failed) starts it again and is sent once the nonce is in.
   */
  private onInvalid(ev: Event): void {
    const box = this.checkbox();
    if (box === null || ev.target !== box) return;
    ev.preventDefault();
    const state = this.state();
    const restart = state !== 'verifying' && (this.auto === 'onfocus' || this.auto === 'onload') && this.submitter !== undefined;
    if (state === 'verifying' || restart) {
      if (this.submitter !== undefined && this.auto !== 'onsubmit') this.pendingSubmit = { submitter: this.submitter };
      this.announce(this.strings().waitAlert);
      if (restart) this.startAgain();
      return;
    }
    this.showReason(this.strings().verificationRequired);
    // Focus goes to the first field the browser finds wrong; when that is this box, here.
    if (this.form?.querySelector(':invalid') === box) box.focus();
  }

  /**
   * A submit while the nonce is on its way waits for it (a few milliseconds), then goes ahead if it
   * came. One without a nonce reaches here only from a form the browser does not validate
   * (`novalidate`, `formnovalidate`): it is held as the box's required check would hold it. A nonce
   * counts once, so a submit with the nonce the form was already submitted with (a page that stays
   * after sending: a single-page app, a form the server sent back) would be refused while the box
   * says verified: it is held, and the work starts over. With `data-auto` the form then goes once the
   * new nonce is in, unless the submit came within RESEND_AFTER_MS of the first (a double click: the
   * first submit is the one that counts); without, the visitor checks the box again.
   */
  private holdSubmit(ev: SubmitEvent): void {
    const pending = this.exchange;
    if (pending !== undefined) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      const form = ev.target as HTMLFormElement;
      void pending.then((ok) => {
        if (ok) form.requestSubmit(this.submitterOf(ev.submitter));
      });
      return;
    }
    const nonce = this.field.value;
    const state = this.state();
    const now = performance.now();
    if (nonce !== '' && this.sent?.nonce !== nonce) {
      this.sent = { nonce, at: now };
      return;
    }
    // ALTCHA starts its own work on a submit, and sends the form after it, from its first state.
    if (nonce === '' && this.auto === 'onsubmit' && state === 'unverified') return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    const resend = nonce !== '';
    if (resend) {
      this.clearNonce();
      this.setAltchaState('unverified');
    }
    if (this.auto === 'off' && (resend || state !== 'verifying')) {
      this.showReason(this.strings().verificationRequired);
      return;
    }
    if (!resend || now - this.sent!.at >= RESEND_AFTER_MS) this.pendingSubmit = { submitter: ev.submitter };
    this.announce(this.strings().waitAlert);
    if (resend || state !== 'verifying') this.startAgain();
  }

  /** Starts the work a task later, unless it runs by then: ALTCHA's own start on the form's focus, if it made one, is under way. */
  private startAgain(): void {
    setTimeout(() => {
      if (this.state() !== 'verifying') void this.altcha.verify();
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
brandFooters();
window.Gatehouse = Object.freeze({ version: 'v1' as const, render });
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => render());
else render();

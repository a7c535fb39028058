/**
 * The signed-in person's token, in memory only: never in storage a page script could read later,
 * never in a URL. The browser's session is an HttpOnly cookie the server sets at sign-in, which no
 * script can read; each tab exchanges it (POST /api/v1/auth/login/session) for short-lived tokens at
 * start-up and before each runs out, so every tab of the browser shares one session, and signing out
 * in one tab signs them all out (docs/DASHBOARD.md, "Security"). Components read it with useSession().
 */
import { useSyncExternalStore } from 'react';
import { createApiClient } from './client';

export interface Session {
  readonly token: string;
  /** When the token runs out (epoch milliseconds): a new one is taken a minute before. */
  readonly expiresAt: number;
  /** When the session itself ends (epoch milliseconds): only a new sign-in goes on after it. */
  readonly endsAt: number;
  /**
   * The session ended while a page was open: the page stays, with what was typed in it, under a
   * dialog that signs in again (SessionGuard).
   */
  readonly lapsed?: boolean;
}

/** Why the person was signed out, shown on the sign-in page. */
export type SignOutReason = 'expired' | 'revoked' | 'signed_out';

/** Whether this browser signed in (no secret: the cookie is the session), so a fresh tab knows to ask for a token. */
const SIGNED_IN_KEY = 'gatehouse.signedIn';
/** A token is renewed this long before it runs out. */
const RENEW_BEFORE_MS = 60_000;
/** After a failed renewal (network, 5xx, 429), the next try. */
const RETRY_MS = 10_000;

type Listener = () => void;
const listeners = new Set<Listener>();
let lastReason: SignOutReason | null = null;
let current: Session | null = null;
let renewal: number | undefined;
let pending: Promise<Outcome> | null = null;
const recoveredListeners = new Set<Listener>();

const plain = createApiClient('');
const tabs = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('gatehouse.session');

/** The token's person (`sub`) and session (`jti`), read without checking the token: the server does. */
function claimsOf(token: string): { sub?: string; jti?: string } {
  try {
    return JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { sub?: string; jti?: string };
  } catch {
    return {};
  }
}

function remember(signedIn: boolean): void {
  try {
    if (signedIn) localStorage.setItem(SIGNED_IN_KEY, '1');
    else localStorage.removeItem(SIGNED_IN_KEY);
  } catch {
    // Storage off: a fresh tab then shows sign-in, and the exchange still works after it.
  }
}

function publish(next: Session | null): void {
  current = next;
  window.clearTimeout(renewal);
  if (next && !next.lapsed && next.expiresAt < next.endsAt)
    renewal = window.setTimeout(() => void renew(), Math.max(0, next.expiresAt - RENEW_BEFORE_MS - Date.now()));
  for (const listener of listeners) listener();
}

/** What an exchange came to: a new token, the session's end (as the sign-in page words it), or no answer to go by. */
type Outcome = 'renewed' | 'expired' | 'revoked' | 'unreachable';

/**
 * A token of the browser's session from its cookie. The session's end stays as this tab knew it while
 * the session is the same one (its `jti`); another one (another tab signed in again) brings its own.
 */
function exchange(): Promise<Outcome> {
  pending ??= (async (): Promise<Outcome> => {
    try {
      const { data, error, response } = await plain.POST('/api/v1/auth/login/session', {
        params: { header: { 'X-Gatehouse-Session': '1' } },
      });
      if (data) {
        const now = Date.now();
        const [was, is] = [claimsOf(current?.token ?? ''), claimsOf(data.token)];
        // Someone else signed in in another tab: nothing of the previous person's stays cached.
        if (current !== null && was.sub !== is.sub) publish(null);
        const same = current !== null && was.jti === is.jti;
        const endsAt = same ? current!.endsAt : now + data.sessionExpiresIn * 1000;
        // A lapse stays while the session is the same (its end came, as this tab counts it).
        const lapsed = same && current!.lapsed === true;
        publish({ token: data.token, expiresAt: Math.min(now + data.expiresIn * 1000, endsAt), endsAt, ...(lapsed ? { lapsed } : {}) });
        remember(true);
        return 'renewed';
      }
      if (response.status !== 401) return 'unreachable';
      remember(false);
      return (error as { error?: string } | undefined)?.error === 'token_expired' ? 'expired' : 'revoked';
    } catch {
      return 'unreachable';
    } finally {
      pending = null;
    }
  })();
  return pending;
}

async function renew(): Promise<void> {
  const outcome = await exchange();
  if (outcome === 'expired') session.lapse();
  else if (outcome === 'revoked') session.end('revoked');
  else if (outcome === 'unreachable' && current)
    renewal = window.setTimeout(() => void renew(), Math.min(RETRY_MS, Math.max(0, current.expiresAt - Date.now())));
}

tabs?.addEventListener('message', (event: MessageEvent<string>) => {
  if (event.data === 'signed_out') session.end('signed_out');
  // Signed in again in another tab: this one goes on with that session, its dialog or sign-in page gone.
  else if (event.data === 'signed_in' && (current === null || current.lapsed)) void exchange();
});

export const session = {
  get: (): Session | null => current,
  token: (): string | undefined => current?.token,
  /** At start-up: a token of the browser's session when it has one (a deep link in a new tab opens signed in). */
  async resume(): Promise<void> {
    let signedIn = false;
    try {
      signedIn = localStorage.getItem(SIGNED_IN_KEY) !== null;
    } catch {
      // Storage off: no hint, sign-in is shown.
    }
    if (!signedIn || current !== null) return;
    const outcome = await exchange();
    if (outcome === 'expired' || outcome === 'revoked') lastReason = outcome;
    // No answer to go by (offline, 429): sign-in shows meanwhile, and the tab goes on once one comes.
    else if (outcome === 'unreachable') window.setTimeout(() => void session.resume(), RETRY_MS);
  },
  /** A sign-in's answer: its token is the new session's, which also lives as long as the session. */
  start(token: string, expiresInSeconds: number): void {
    lastReason = null;
    const endsAt = Date.now() + expiresInSeconds * 1000;
    publish({ token, expiresAt: endsAt, endsAt });
    remember(true);
    tabs?.postMessage('signed_in');
  },
  /**
   * The server refused the token (it ran out while the tab slept, or its session was replaced: the
   * password changed in another tab): first a new one from the browser's session, silently. Only
   * when the session is over, the dialog over the page (expired) or the sign-in page (ended).
   */
  async recover(): Promise<void> {
    const outcome = await exchange();
    if (outcome === 'renewed') for (const listener of recoveredListeners) listener();
    else if (outcome === 'revoked') session.end('revoked');
    else session.lapse();
  },
  /** After a silent recovery: what failed with the refused token is asked again. */
  onRecovered(listener: Listener): () => void {
    recoveredListeners.add(listener);
    return () => recoveredListeners.delete(listener);
  },
  /** The session ended while a page is open: the page stays, and a dialog asks to sign in again. */
  lapse(): void {
    if (current === null || current.lapsed) return;
    publish({ ...current, lapsed: true });
  },
  end(reason: SignOutReason): void {
    if (current === null) return;
    lastReason = reason;
    publish(null);
  },
  /** Signed out (the server ended the session): this tab and every other tab of the browser. */
  signOut(): void {
    remember(false);
    tabs?.postMessage('signed_out');
    session.end('signed_out');
  },
  /** The reason of the last sign-out, once: the sign-in page shows it. */
  takeReason(): SignOutReason | null {
    const reason = lastReason;
    lastReason = null;
    return reason;
  },
  // An arrow function: useSyncExternalStore calls it unbound.
  subscribe: (listener: Listener): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export function useSession(): Session | null {
  return useSyncExternalStore(session.subscribe, session.get);
}

/**
 * The account requires a second factor and this person has none: the API answered 403 `mfa_required`.
 * The frame then opens the Security page, which says why.
 */
let secondFactorDemanded = false;
const demandListeners = new Set<Listener>();
export const secondFactorDemand = {
  get: (): boolean => secondFactorDemanded,
  set(value: boolean): void {
    if (secondFactorDemanded === value) return;
    secondFactorDemanded = value;
    for (const listener of demandListeners) listener();
  },
  subscribe: (listener: Listener): (() => void) => {
    demandListeners.add(listener);
    return () => demandListeners.delete(listener);
  },
};

export function useSecondFactorDemanded(): boolean {
  return useSyncExternalStore(secondFactorDemand.subscribe, secondFactorDemand.get);
}

/**
 * The signed-in person's token: kept for this tab only (sessionStorage, so a reload stays signed in
 * and closing the tab signs out), never put in a URL. Components read it with useSession().
 */
import { useSyncExternalStore } from 'react';

const STORAGE_KEY = 'gatehouse.session';

export interface Session {
  readonly token: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
  /**
   * The server refused the token as expired while a page was open: the page stays, with what was
   * typed in it, under a dialog that signs in again (SessionGuard).
   */
  readonly lapsed?: boolean;
}

/** Why the person was signed out, shown on the sign-in page. */
export type SignOutReason = 'expired' | 'revoked' | 'signed_out';

type Listener = () => void;
const listeners = new Set<Listener>();
let lastReason: SignOutReason | null = null;
let current: Session | null = read();

/** The token's own expiry (its `exp`, epoch milliseconds), read without checking it: the server does. */
export function tokenExpiry(token: string): number | undefined {
  try {
    const payload = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

function read(): Session | null {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Session | null;
    if (!parsed || typeof parsed.token !== 'string') return null;
    const expiresAt = Math.min(parsed.expiresAt, tokenExpiry(parsed.token) ?? Infinity);
    if (expiresAt > Date.now()) return { token: parsed.token, expiresAt };
    // A reload after the token ran out: the sign-in page says why.
    sessionStorage.removeItem(STORAGE_KEY);
    lastReason = 'expired';
    return null;
  } catch {
    return null;
  }
}

function publish(next: Session | null): void {
  current = next;
  if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ token: next.token, expiresAt: next.expiresAt }));
  else sessionStorage.removeItem(STORAGE_KEY);
  for (const listener of listeners) listener();
}

export const session = {
  get: (): Session | null => current,
  token: (): string | undefined => current?.token,
  start(token: string, expiresInSeconds: number): void {
    lastReason = null;
    publish({ token, expiresAt: Date.now() + expiresInSeconds * 1000 });
  },
  /** The token ran out while a page is open: the page stays, and a dialog asks to sign in again. */
  lapse(): void {
    if (current === null || current.lapsed) return;
    publish({ ...current, lapsed: true });
  },
  end(reason: SignOutReason): void {
    if (current === null) return;
    lastReason = reason;
    publish(null);
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

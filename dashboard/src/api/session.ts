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
}

/** Why the person was signed out, shown on the sign-in page. */
export type SignOutReason = 'expired' | 'revoked' | 'signed_out';

type Listener = () => void;
const listeners = new Set<Listener>();
let current: Session | null = read();
let lastReason: SignOutReason | null = null;

function read(): Session | null {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Session | null;
    return parsed && typeof parsed.token === 'string' && parsed.expiresAt > Date.now() ? parsed : null;
  } catch {
    return null;
  }
}

function publish(next: Session | null): void {
  current = next;
  if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
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

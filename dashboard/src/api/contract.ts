import { api } from './api';
import { unwrap } from './errors';

/**
 * The sign-in protection routes (second factors, passkeys, sessions) through the dashboard's one
 * client — its token and its 401 handling — with their answers typed here by hand: the OpenAPI
 * document types every other route (schema.d.ts).
 */
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
type Untyped = Record<
  Method,
  (path: string, init?: { body?: unknown }) => Promise<{ data?: unknown; error?: unknown; response: Response }>
>;
const untyped = api as unknown as Untyped;

export async function call<T>(method: Method, path: string, body?: unknown): Promise<T> {
  return unwrap(
    (await untyped[method](path, body === undefined ? undefined : { body })) as { data?: T; error?: unknown; response: Response },
  );
}

/** A login's answer: a token, or the second step it needs. */
export interface TokenAnswer {
  readonly token: string;
  readonly expiresIn: number;
}
export type SecondFactorMethod = 'totp' | 'recovery_code' | 'passkey';
export interface SecondStep {
  readonly mfaRequired: true;
  readonly mfaToken: string;
  readonly methods: readonly SecondFactorMethod[];
}
export type LoginAnswer = TokenAnswer | SecondStep;

export const needsSecondStep = (answer: LoginAnswer): answer is SecondStep => 'mfaRequired' in answer && answer.mfaRequired;

export interface MfaStatus {
  readonly totp: boolean;
  readonly passkeys: number;
  readonly recoveryCodesLeft: number;
  /** The account requires a second factor of every member. */
  readonly required: boolean;
}

export interface Passkey {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly deviceType?: string;
  readonly backedUp?: boolean;
}

export interface SignInSession {
  readonly id: string;
  readonly device: string;
  readonly ip: string | null;
  readonly method?: string;
  readonly createdAt: string;
  readonly lastSeenAt: string | null;
  readonly expiresAt: string;
  readonly current: boolean;
}

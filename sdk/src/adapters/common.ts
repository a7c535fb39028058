import type { NonceVerifier, Verdict, VerifyOptions } from '../types';

/** The form field the widget fills. */
export const DEFAULT_FIELD = 'gatehouse-nonce';

/** What every middleware takes besides the verifier. */
export interface MiddlewareOptions {
  /** The form field with the nonce (the widget's `data-field`), default `gatehouse-nonce`. */
  readonly field?: string;
  /** Checks for this route, over the verifier's (hostnames, minSolveRatio, maxAgeMs, …). */
  readonly checks?: Omit<VerifyOptions, 'signal' | 'idempotencyKey'>;
}

/** The RFC 9457 problem a refused request answers (403, application/problem+json). */
export interface GatehouseProblem {
  readonly type: 'about:blank';
  readonly title: 'Forbidden';
  readonly status: 403;
  readonly detail: string;
  readonly outcome: 'invalid' | 'unverified';
  readonly reason?: string;
  readonly error?: string;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const DETAIL: Record<string, string> = {
  malformed: 'The form carried no usable verification. Complete the check and send the form again.',
  unknown: 'The form’s verification is not valid. Complete the check and send the form again.',
  expired: 'The form’s verification expired. Complete the check again.',
  already_used: 'This form was already sent with this verification. Complete the check again to send it once more.',
  hostname_mismatch: 'The verification was done on another site.',
  effort_too_low: 'The verification was not completed as a browser completes it.',
  too_old: 'The form’s verification is too old. Complete the check again.',
  idempotency_key_reused: 'The verification could not be checked.',
};

/** The 403 body for a refused verdict: what went wrong in a visitor's words, and the verdict's code. */
export function problemFor(verdict: Exclude<Verdict, { accepted: true }>): GatehouseProblem {
  const base = { type: 'about:blank', title: 'Forbidden', status: 403 } as const;
  if (verdict.outcome === 'invalid')
    return { ...base, detail: DETAIL[verdict.reason] ?? DETAIL.unknown, outcome: 'invalid', reason: verdict.reason };
  return {
    ...base,
    detail: 'The verification service could not be reached. Try again in a moment.',
    outcome: 'unverified',
    error: verdict.error,
  };
}

/** The nonce in a parsed body (JSON or urlencoded, as the framework parsed it): its field's value, whatever type it is. */
export function nonceFromBody(body: unknown, field: string = DEFAULT_FIELD): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  if (!Object.prototype.hasOwnProperty.call(body, field)) return undefined;
  return (body as Record<string, unknown>)[field];
}

/**
 * The nonce in a standard Request's body (JSON, urlencoded or multipart), read from a clone so the
 * handler can still read the body. A body that does not parse has no nonce.
 */
export async function nonceFromRequest(request: Request, field: string = DEFAULT_FIELD): Promise<unknown> {
  const type = (request.headers.get('content-type') ?? '').toLowerCase();
  try {
    if (type.includes('application/json') || /application\/[^;]*\+json/.test(type))
      return nonceFromBody(await request.clone().json(), field);
    if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
      const values = (await request.clone().formData()).getAll(field);
      return values.length === 1 ? values[0] : values.length === 0 ? undefined : values;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** Verifies what the field carried, with the middleware's checks. */
export function verifyField(verifier: NonceVerifier, nonce: unknown, options: MiddlewareOptions, signal?: AbortSignal): Promise<Verdict> {
  return verifier.verify(nonce, { ...options.checks, ...(signal === undefined ? {} : { signal }) });
}

export type { Verdict };

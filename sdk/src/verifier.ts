import { type Answer, type PolicyOptions, VerifierCore } from './core';
import { GatehouseConfigurationError } from './errors';
import type { ApiInvalidReason, Effort, NonceFacts } from './types';
import { VERSION } from './version';

/** The fetch this package calls: the global one unless you pass your own. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface GatehouseVerifierOptions extends PolicyOptions {
  /** A key with the `verify` scope (`gh_…`): a server secret. */
  readonly apiKey: string;
  /** Where Gatehouse is, e.g. `https://gatehouse.example.com` (a trailing `/api/v1` is allowed). */
  readonly baseUrl: string | URL;
  /** Each attempt's limit, ms (default 3000): connecting, sending and reading the answer. */
  readonly timeoutMs?: number;
  /** The whole call's limit, retries and waits included, ms (default 8000). */
  readonly totalTimeoutMs?: number;
  /** Retries after a timeout, a dropped connection, 408, 429 or 5xx (default 2, at most 5). */
  readonly retries?: number;
  /** Your fetch (default: the global one). */
  readonly fetch?: FetchLike;
  /** Appended to the User-Agent, e.g. `my-shop/1.4`. */
  readonly userAgent?: string;
}

const DEFAULT_TIMEOUT_MS = 3000;
const DEFAULT_TOTAL_TIMEOUT_MS = 8000;
const DEFAULT_RETRIES = 2;
const BACKOFF_BASE_MS = 200;
const MAX_BODY_CHARS = 65_536;
const API_REASONS: readonly string[] = ['unknown', 'expired', 'already_used'] satisfies ApiInvalidReason[];

function runtime(): string {
  const g = globalThis as {
    Deno?: { version?: { deno?: string } };
    Bun?: { version?: string };
    process?: { versions?: { node?: string } };
    navigator?: { userAgent?: string };
  };
  if (g.Deno?.version?.deno) return `deno/${g.Deno.version.deno}`;
  if (g.Bun?.version) return `bun/${g.Bun.version}`;
  if (g.process?.versions?.node) return `node/${g.process.versions.node}`;
  if (g.navigator?.userAgent === 'Cloudflare-Workers') return 'cloudflare-workers';
  return 'unknown-runtime';
}

function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  // Node 18 without the global Web Crypto: an idempotency key must be unique, not secret.
  const hex = Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** Retry-After as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function positive(name: string, value: unknown, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max)
    throw new GatehouseConfigurationError('invalid_option', `\`${name}\` must be a number from 0 to ${max}.`);
  return value;
}

/** Resolves true after `ms`, false as soon as the signal aborts; its timer never outlives it. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function readEffort(v: unknown): Effort | null | undefined {
  if (v === null) return null;
  if (!isObject(v)) return undefined;
  const { algorithm, cost, expectedSolveMs, solveMs, surge } = v;
  if (typeof algorithm !== 'string' || !isCount(cost) || !isCount(expectedSolveMs) || !isCount(solveMs) || typeof surge !== 'boolean')
    return undefined;
  return { algorithm: algorithm as Effort['algorithm'], cost, expectedSolveMs, solveMs, surge };
}

/** The documented 200 answer, or undefined for anything else (which is never taken for valid). */
function readVerdict(
  body: unknown,
): { valid: true; facts: NonceFacts; replayed: boolean } | { valid: false; reason: string; known: boolean } | undefined {
  if (!isObject(body)) return undefined;
  if (body.valid === false) {
    // Whatever else it says, Gatehouse said not valid: refuse, with its reason when it is one we know.
    const reason = typeof body.reason === 'string' ? body.reason : '';
    return { valid: false, reason, known: API_REASONS.includes(reason) };
  }
  if (body.valid !== true) return undefined;
  const issuedAt = typeof body.issuedAt === 'string' ? new Date(body.issuedAt) : undefined;
  const effort = readEffort(body.effort);
  if (issuedAt === undefined || Number.isNaN(issuedAt.getTime())) return undefined;
  if (!(typeof body.hostname === 'string' || body.hostname === null) || effort === undefined) return undefined;
  return { valid: true, facts: { issuedAt, hostname: body.hostname, effort }, replayed: body.replayed === true };
}

type Attempt =
  | { kind: 'answer'; status: number; text: string | undefined; retryAfterMs?: number; requestId?: string; location?: string }
  | { kind: 'timeout' }
  | { kind: 'network'; message: string }
  | { kind: 'aborted' };

/** A retryable failure (timeout, network, 408, 429, 5xx) or the verdict-to-be of one attempt. */
type Classified = { final: Answer } | { retry: Answer & { outcome: 'unverified' }; retryAfterMs?: number };

/**
 * Verifies nonces with Gatehouse's `POST /api/v1/nonces/verify`: global fetch, no dependencies,
 * retries that cannot burn a good nonce (one Idempotency-Key for a call and its retries).
 */
export class GatehouseVerifier extends VerifierCore {
  private readonly endpoint: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly totalTimeoutMs: number;
  private readonly retries: number;
  private readonly fetch: FetchLike;

  constructor(options: GatehouseVerifierOptions) {
    if (!isObject(options))
      throw new GatehouseConfigurationError('invalid_option', 'new GatehouseVerifier({ apiKey, baseUrl }): options missing.');
    super(options);
    const { apiKey, baseUrl } = options;
    if (typeof apiKey !== 'string' || apiKey.trim() === '')
      throw new GatehouseConfigurationError(
        'missing_api_key',
        'No Gatehouse API key: pass `apiKey`, a key with the `verify` scope (e.g. from process.env.GATEHOUSE_VERIFY_KEY).',
      );
    if (!/^[\x21-\x7e]+$/.test(apiKey))
      throw new GatehouseConfigurationError('invalid_option', 'The Gatehouse API key contains spaces or characters no key has.');
    let base: URL;
    try {
      base = new URL(String(baseUrl));
    } catch {
      throw new GatehouseConfigurationError('invalid_option', '`baseUrl` must be an absolute URL, e.g. https://gatehouse.example.com.');
    }
    if (base.protocol !== 'https:' && base.protocol !== 'http:')
      throw new GatehouseConfigurationError('invalid_option', '`baseUrl` must be an http(s) URL.');
    if (base.username !== '' || base.password !== '' || base.search !== '' || base.hash !== '')
      throw new GatehouseConfigurationError('invalid_option', '`baseUrl` must have no credentials, query or fragment.');
    const path = base.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
    this.endpoint = `${base.origin}${path}/api/v1/nonces/verify`;
    this.timeoutMs = positive('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
    this.totalTimeoutMs = positive('totalTimeoutMs', options.totalTimeoutMs, DEFAULT_TOTAL_TIMEOUT_MS);
    this.retries = Math.floor(positive('retries', options.retries, DEFAULT_RETRIES, 5));
    const globalFetch = (globalThis as { fetch?: FetchLike }).fetch;
    const fetchImpl = options.fetch ?? globalFetch;
    if (typeof fetchImpl !== 'function')
      throw new GatehouseConfigurationError('invalid_option', 'No fetch: this runtime has no global fetch (Node ≥ 18 has); pass `fetch`.');
    this.fetch = options.fetch ?? ((input, init) => globalFetch!(input, init));
    const extra = options.userAgent === undefined ? '' : ` ${String(options.userAgent).replace(/[^\x20-\x7e]/g, '')}`;
    this.headers = {
      'X-Api-Key': apiKey,
      'Content-Type': 'application/json',
      Accept: 'application/json',
      'User-Agent': `gatehouse-verify/${VERSION} (@gatehouse/verify; ${runtime()})${extra}`,
    };
  }

  protected async ask(nonce: string, idempotencyKey: string | undefined, signal: AbortSignal | undefined): Promise<Answer> {
    const deadline = Date.now() + this.totalTimeoutMs;
    const body = JSON.stringify({ nonce });
    const headers = { ...this.headers, 'Idempotency-Key': idempotencyKey ?? randomId() };
    let last: (Answer & { outcome: 'unverified' }) | undefined;
    for (let attempts = 1; ; attempts++) {
      if (signal?.aborted) return this.aborted(attempts - 1);
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        return last ?? { outcome: 'unverified', error: 'timeout', message: 'The time budget ran out.', attempts: attempts - 1 };
      const attempt = await this.attempt(body, headers, Math.min(this.timeoutMs, remaining), signal);
      const classified = this.classify(attempt, attempts);
      if ('final' in classified) return classified.final;
      const failure = classified.retry;
      last = failure;
      if (attempts > this.retries) return failure;
      const wait = classified.retryAfterMs ?? BACKOFF_BASE_MS * 2 ** (attempts - 1) * (0.5 + Math.random() / 2);
      // A Retry-After past the budget: answer now rather than wait for nothing.
      if (Date.now() + wait >= deadline) return failure;
      if (!(await sleep(wait, signal))) return this.aborted(attempts);
    }
  }

  private aborted(attempts: number): Answer {
    return { outcome: 'unverified', error: 'aborted', message: 'The verification was aborted by its signal.', attempts };
  }

  /** One request, its answer read in full within `timeoutMs`; every timer and listener gone when it resolves. */
  private async attempt(
    body: string,
    headers: Record<string, string>,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Attempt> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = (): void => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await this.fetch(this.endpoint, { method: 'POST', headers, body, signal: controller.signal, redirect: 'manual' });
      const length = Number(res.headers.get('content-length') ?? '0');
      let text: string | undefined;
      if (length > MAX_BODY_CHARS) await res.body?.cancel();
      else {
        text = await res.text();
        if (text.length > MAX_BODY_CHARS) text = undefined;
      }
      return {
        kind: 'answer',
        status: res.status,
        text,
        retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
        requestId: res.headers.get('x-request-id') ?? undefined,
        location: res.headers.get('location') ?? undefined,
      };
    } catch (err) {
      if (timedOut) return { kind: 'timeout' };
      if (signal?.aborted) return { kind: 'aborted' };
      return { kind: 'network', message: describeNetworkError(err) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private classify(attempt: Attempt, attempts: number): Classified {
    switch (attempt.kind) {
      case 'aborted':
        return { final: this.aborted(attempts) };
      case 'timeout':
        return {
          retry: { outcome: 'unverified', error: 'timeout', message: `Gatehouse did not answer in time at ${this.endpoint}.`, attempts },
        };
      case 'network':
        return {
          retry: {
            outcome: 'unverified',
            error: 'network',
            message: `Gatehouse could not be reached at ${this.endpoint}: ${attempt.message}`,
            attempts,
          },
        };
      case 'answer':
        break;
    }
    const { status, requestId } = attempt;
    const ids = requestId === undefined ? {} : { requestId };
    const rid = requestId === undefined ? '' : ` (request id ${requestId})`;
    const json = parseJson(attempt.text);
    const code = isObject(json) && typeof json.error === 'string' ? json.error : undefined;
    const unverified = (error: 'server' | 'rate_limited' | 'timeout' | 'bad_response', message: string) =>
      ({ outcome: 'unverified', error, message, status, attempts, ...ids }) as const;
    if (status === 200) {
      const verdict = readVerdict(json);
      if (verdict === undefined)
        return { final: unverified('bad_response', `Gatehouse's answer is not the documented verdict (HTTP 200)${rid}.`) };
      if (verdict.valid) return { final: { outcome: 'valid', facts: verdict.facts, replayed: verdict.replayed, attempts, ...ids } };
      const reason = verdict.known ? (verdict.reason as ApiInvalidReason) : 'unknown';
      const message = verdict.known ? MESSAGES[reason] : 'Gatehouse answered not valid, for a reason this version does not know.';
      return { final: { outcome: 'invalid', reason, message, attempts, ...ids } };
    }
    if (status === 401)
      throw new GatehouseConfigurationError(
        'invalid_api_key',
        `Gatehouse refused the API key (401 invalid_api_key): it is unknown, revoked or expired${rid}. Use a live key with the \`verify\` scope.`,
        status,
        requestId,
      );
    if (status === 403)
      throw new GatehouseConfigurationError(
        'insufficient_permissions',
        `The API key may not verify nonces (403 ${code ?? 'insufficient_permissions'})${rid}: it lacks the \`verify\` scope. Create a key with scopes ["verify"] for your server.`,
        status,
        requestId,
      );
    if (status === 404)
      throw new GatehouseConfigurationError(
        'not_found',
        `No Gatehouse verify endpoint at ${this.endpoint} (404)${rid}: check \`baseUrl\`.`,
        status,
        requestId,
      );
    if (status >= 300 && status < 400)
      throw new GatehouseConfigurationError(
        'invalid_option',
        `${this.endpoint} answered a redirect (${status}${attempt.location === undefined ? '' : ` to ${attempt.location.split('?')[0]}`}): set \`baseUrl\` to where Gatehouse is.`,
        status,
        requestId,
      );
    if (status === 400)
      return {
        final: {
          outcome: 'invalid',
          reason: 'malformed',
          message: `Gatehouse refused the nonce as malformed (400)${rid}.`,
          attempts,
          ...ids,
        },
      };
    if (status === 422 && code === 'idempotency_key_reused')
      return {
        final: {
          outcome: 'invalid',
          reason: 'idempotency_key_reused',
          message: `The Idempotency-Key was used before with another nonce (422)${rid}.`,
          attempts,
          ...ids,
        },
      };
    if (status === 429)
      return { retry: unverified('rate_limited', `Over the plan's rate limit (429)${rid}.`), retryAfterMs: attempt.retryAfterMs };
    if (status === 408) return { retry: unverified('timeout', `Gatehouse timed the request out (408)${rid}.`) };
    if (status >= 500 && status < 600)
      return {
        retry: unverified('server', `Gatehouse answered ${status}${code === undefined ? '' : ` ${code}`}${rid}.`),
        retryAfterMs: attempt.retryAfterMs,
      };
    return { final: unverified('bad_response', `Gatehouse answered an unexpected HTTP ${status}${rid}.`) };
  }
}

const MESSAGES: Record<ApiInvalidReason, string> = {
  unknown: 'Not a nonce issued to this account (made up, altered, another account’s, or long expired).',
  expired: 'The nonce expired before it was verified.',
  already_used: 'The nonce was verified before: a resubmission or a replay.',
};

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A fetch failure in words: its cause's code (ECONNREFUSED, …), never the request it carried. */
function describeNetworkError(err: unknown): string {
  const cause = isObject(err) && isObject(err.cause) ? err.cause : undefined;
  const code = cause !== undefined && typeof cause.code === 'string' ? cause.code : undefined;
  const name = err instanceof Error ? err.name : 'Error';
  return code ?? (err instanceof TypeError ? 'fetch failed' : name);
}

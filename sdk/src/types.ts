/** What the proof of work behind a nonce cost the browser that solved it (Gatehouse's docs/API.md, "Effort"). */
export interface Effort {
  /** The proof of work's key-derivation function. */
  readonly algorithm: 'PBKDF2/SHA-256';
  /** Iterations a candidate. */
  readonly cost: number;
  /** What this very challenge takes a person's browser on Gatehouse's reference machine, in ms. */
  readonly expectedSolveMs: number;
  /** Measured by Gatehouse: from issuing the challenge to receiving its solution, in ms. */
  readonly solveMs: number;
  /** Whether a surge of challenge requests raised the difficulty (the proof then cost more, not less). */
  readonly surge: boolean;
}

/** What Gatehouse knows of a live nonce: the page it was solved on and what it cost. */
export interface NonceFacts {
  readonly issuedAt: Date;
  /** Host of the page the challenge was solved on (its Origin); null when fetched without one, i.e. not from a page. */
  readonly hostname: string | null;
  /** Null only for nonces issued before Gatehouse recorded the effort. */
  readonly effort: Effort | null;
}

/** Reasons Gatehouse gives for a nonce that is not valid. */
export type ApiInvalidReason = 'unknown' | 'expired' | 'already_used';

/**
 * Reasons this package adds: the nonce was valid (and is now used) but your checks refused it
 * (`hostname_mismatch`, `effort_too_low`, `too_old`); it could not be a nonce (`malformed`, decided
 * without a network call, or answered 400 by Gatehouse); or the idempotency key you passed was used
 * before with another nonce (`idempotency_key_reused`).
 */
export type LocalInvalidReason = 'hostname_mismatch' | 'effort_too_low' | 'too_old' | 'malformed' | 'idempotency_key_reused';

export type InvalidReason = ApiInvalidReason | LocalInvalidReason;

/**
 * Why no verdict was had: no answer in time (`timeout`), no connection (`network`), a 5xx
 * (`server`), 429 past the time budget (`rate_limited`), an answer that is not Gatehouse's documented
 * one (`bad_response`), or your AbortSignal (`aborted`).
 */
export type UnverifiedError = 'timeout' | 'network' | 'server' | 'rate_limited' | 'bad_response' | 'aborted';

interface VerdictBase {
  /** HTTP requests made for this verification (0 when refused locally). */
  readonly attempts: number;
  /** Gatehouse's X-Request-Id of the last answer, for support. */
  readonly requestId?: string;
}

/** The nonce was live, is now used, and passed your checks. */
export interface ValidVerdict extends VerdictBase, NonceFacts {
  readonly outcome: 'valid';
  readonly accepted: true;
  /** True when Gatehouse answered a retry (same Idempotency-Key) with the verdict it gave before. */
  readonly replayed: boolean;
}

/** Not a good nonce: refuse the form. Never accepted, whatever the failure policy. */
export interface InvalidVerdict extends VerdictBase {
  readonly outcome: 'invalid';
  readonly accepted: false;
  readonly reason: InvalidReason;
  /** What was wrong, in words (never the nonce itself). */
  readonly message: string;
  /** For hostname_mismatch, effort_too_low and too_old: what Gatehouse said of the (now used) nonce. */
  readonly facts?: NonceFacts;
}

/** Gatehouse could not be asked: `accepted` is what your `onUnavailable` policy decided (false by default). */
export interface UnverifiedVerdict extends VerdictBase {
  readonly outcome: 'unverified';
  readonly accepted: boolean;
  readonly error: UnverifiedError;
  /** What went wrong, in words (never the nonce or the key). */
  readonly message: string;
  /** The HTTP status of the last answer, when there was one. */
  readonly status?: number;
}

export type Verdict = ValidVerdict | InvalidVerdict | UnverifiedVerdict;

/** A verdict that lets the form through: a valid nonce, or an unverified one your policy accepted. */
export type AcceptedVerdict = ValidVerdict | (UnverifiedVerdict & { readonly accepted: true });

/** Local checks of a valid nonce, on the verifier (for every call) or on one call (overriding those fields). */
export interface Checks {
  /**
   * The hostnames your form is served from: exact (`shop.example.com`) or one wildcard label for
   * any subdomain (`*.example.com`, which does not match `example.com` itself). A nonce of another
   * page, or of none (hostname null), is refused as `hostname_mismatch`.
   */
  readonly hostnames?: readonly string[];
  /** The least PBKDF2 cost (iterations a candidate) accepted; below it → `effort_too_low`. */
  readonly minCost?: number;
  /**
   * The least solveMs ÷ expectedSolveMs accepted (say 0.1): a proof solved in a small fraction of
   * what a person's browser takes was precomputed, leaked or solved on far faster hardware → `effort_too_low`.
   * Applied only to challenges expected to take at least `minSolveRatioFloorMs`.
   */
  readonly minSolveRatio?: number;
  /** Challenges expected to take less than this (ms, default 300) are not held to `minSolveRatio`: too quick to measure. */
  readonly minSolveRatioFloorMs?: number;
  /**
   * The oldest nonce accepted, in ms since Gatehouse issued it; older → `too_old`. Measured with this
   * server's clock against `issuedAt` (whole seconds), so the server's clock must be synchronised.
   */
  readonly maxAgeMs?: number;
  /**
   * Accept only proofs solved at a surge's raised difficulty (`effort.surge`), e.g. while your own
   * signals say a form is under attack; any other proof, or one without recorded effort → `effort_too_low`.
   */
  readonly requireSurge?: boolean;
}

/** One call's options: checks overriding the verifier's, an AbortSignal, your own Idempotency-Key. */
export interface VerifyOptions extends Checks {
  /** Aborting answers `unverified`/`aborted` (never accepted) and clears every timer. */
  readonly signal?: AbortSignal;
  /**
   * By default each call sends one random Idempotency-Key, the same on its retries. Pass your own
   * (1–255 printable ASCII characters) to make retries of the whole call, e.g. a job queue's, answer
   * the first verdict again. The same key with another nonce is refused as `idempotency_key_reused`.
   */
  readonly idempotencyKey?: string;
}

/** What `onVerify` is told of each verification: never the nonce or the key. */
export interface VerifyEvent {
  readonly outcome: Verdict['outcome'];
  readonly accepted: boolean;
  readonly reason?: InvalidReason;
  readonly error?: UnverifiedError;
  /** From the call to its verdict, retries and waits included. */
  readonly latencyMs: number;
  readonly attempts: number;
  readonly replayed?: boolean;
  readonly status?: number;
  readonly requestId?: string;
}

/** What the middlewares need: GatehouseVerifier, or the fake of `@gatehouse/verify/testing`. */
export interface NonceVerifier {
  verify(nonce: unknown, options?: VerifyOptions): Promise<Verdict>;
  verifyOrThrow(nonce: unknown, options?: VerifyOptions): Promise<AcceptedVerdict>;
}

/** What happens when Gatehouse cannot be asked: refuse (default), accept, or decide per failure. */
export type UnavailablePolicy = 'reject' | 'accept' | ((verdict: UnverifiedVerdict) => boolean | Promise<boolean>);

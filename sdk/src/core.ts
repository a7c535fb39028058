import { failedCheck, malformation, mergeChecks, normaliseChecks } from './checks';
import { GatehouseConfigurationError, GatehouseRefusedError } from './errors';
import type {
  AcceptedVerdict,
  Checks,
  InvalidReason,
  NonceFacts,
  NonceVerifier,
  UnavailablePolicy,
  UnverifiedError,
  Verdict,
  VerifyEvent,
  VerifyOptions,
} from './types';

/** What asking Gatehouse (or a fake of it) came to, before the checks and the failure policy. */
export type Answer =
  | { outcome: 'valid'; facts: NonceFacts; replayed: boolean; attempts: number; requestId?: string }
  | { outcome: 'invalid'; reason: InvalidReason; message: string; attempts: number; requestId?: string }
  | { outcome: 'unverified'; error: UnverifiedError; message: string; attempts: number; status?: number; requestId?: string };

/** The policy every verifier shares: checks, the failure policy, the hook. */
export interface PolicyOptions extends Checks {
  /** What an `unverified` outcome answers: 'reject' (default), 'accept', or a function deciding. Never applied to anything else. */
  readonly onUnavailable?: UnavailablePolicy;
  /** Told of every verification (outcome, latency, attempts; never the nonce or key). What it throws is ignored. */
  readonly onVerify?: (event: VerifyEvent) => void;
}

/** An Idempotency-Key as Gatehouse takes them: 1–255 printable ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

const now = (): number => Date.now();

/**
 * Local refusals, checks of valid nonces, the failure policy, `onVerify` and `verifyOrThrow`, over
 * `ask` (an HTTP call in GatehouseVerifier, a table in the fake of /testing).
 */
export abstract class VerifierCore implements NonceVerifier {
  private readonly checks: Checks;
  private readonly onUnavailable: UnavailablePolicy;
  private readonly onVerify?: (event: VerifyEvent) => void;

  protected constructor(options: PolicyOptions) {
    this.checks = normaliseChecks(options);
    const policy = options.onUnavailable ?? 'reject';
    if (policy !== 'reject' && policy !== 'accept' && typeof policy !== 'function')
      throw new GatehouseConfigurationError('invalid_option', "`onUnavailable` must be 'reject', 'accept' or a function.");
    this.onUnavailable = policy;
    if (options.onVerify !== undefined && typeof options.onVerify !== 'function')
      throw new GatehouseConfigurationError('invalid_option', '`onVerify` must be a function.');
    this.onVerify = options.onVerify;
  }

  /** Asks about a nonce that may be one (a non-empty string of at most 512 characters, no controls). */
  protected abstract ask(nonce: string, idempotencyKey: string | undefined, signal: AbortSignal | undefined): Promise<Answer>;

  /**
   * The verdict on what the form carried. Never rejects for a verdict, a network failure or an
   * answer it cannot read; rejects only with a GatehouseConfigurationError (a key refused or
   * without the `verify` scope, a bad option).
   */
  async verify(nonce: unknown, options: VerifyOptions = {}): Promise<Verdict> {
    const started = now();
    const verdict = await this.judge(nonce, options);
    this.report(verdict, now() - started);
    return verdict;
  }

  /** The accepted verdict, or a GatehouseRefusedError carrying the refused one. */
  async verifyOrThrow(nonce: unknown, options?: VerifyOptions): Promise<AcceptedVerdict> {
    const verdict = await this.verify(nonce, options);
    if (verdict.accepted) return verdict as AcceptedVerdict;
    throw new GatehouseRefusedError(verdict);
  }

  private async judge(nonce: unknown, options: VerifyOptions): Promise<Verdict> {
    const checks = mergeChecks(this.checks, options);
    const { idempotencyKey, signal } = options;
    if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || !IDEMPOTENCY_KEY.test(idempotencyKey)))
      throw new GatehouseConfigurationError('invalid_idempotency_key', '`idempotencyKey` must be 1–255 printable ASCII characters.');
    const bad = malformation(nonce);
    if (bad !== undefined) return { outcome: 'invalid', accepted: false, reason: 'malformed', message: bad, attempts: 0 };
    const answer = await this.ask(nonce as string, idempotencyKey, signal);
    const ids = answer.requestId === undefined ? {} : { requestId: answer.requestId };
    switch (answer.outcome) {
      case 'valid': {
        const failed = failedCheck(answer.facts, checks, now());
        if (failed !== undefined)
          return { outcome: 'invalid', accepted: false, ...failed, facts: answer.facts, attempts: answer.attempts, ...ids };
        return { outcome: 'valid', accepted: true, ...answer.facts, replayed: answer.replayed, attempts: answer.attempts, ...ids };
      }
      case 'invalid':
        return { outcome: 'invalid', accepted: false, reason: answer.reason, message: answer.message, attempts: answer.attempts, ...ids };
      case 'unverified': {
        const verdict = {
          outcome: 'unverified' as const,
          accepted: false,
          error: answer.error,
          message: answer.message,
          attempts: answer.attempts,
          ...(answer.status === undefined ? {} : { status: answer.status }),
          ...ids,
        };
        // Your own abort is not Gatehouse being unavailable: never accepted.
        return answer.error === 'aborted' ? verdict : { ...verdict, accepted: await this.decide(verdict) };
      }
    }
  }

  /**
   * The failure policy's decision; a policy function that throws or answers anything but true
   * refuses. 'accept' takes Gatehouse being unreachable, slow, failing or rate-limited, not an answer
   * that is not Gatehouse's (`bad_response`: most likely a wrong baseUrl); a function decides on all.
   */
  private async decide(verdict: Verdict & { outcome: 'unverified' }): Promise<boolean> {
    if (this.onUnavailable === 'accept') return verdict.error !== 'bad_response';
    if (this.onUnavailable === 'reject') return false;
    try {
      return (await this.onUnavailable(verdict)) === true;
    } catch {
      return false;
    }
  }

  private report(verdict: Verdict, latencyMs: number): void {
    if (this.onVerify === undefined) return;
    const event: VerifyEvent = {
      outcome: verdict.outcome,
      accepted: verdict.accepted,
      latencyMs,
      attempts: verdict.attempts,
      ...(verdict.outcome === 'invalid' ? { reason: verdict.reason } : {}),
      ...(verdict.outcome === 'unverified'
        ? { error: verdict.error, ...(verdict.status === undefined ? {} : { status: verdict.status }) }
        : {}),
      ...(verdict.outcome === 'valid' ? { replayed: verdict.replayed } : {}),
      ...(verdict.requestId === undefined ? {} : { requestId: verdict.requestId }),
    };
    try {
      const result = this.onVerify(event) as unknown;
      if (result instanceof Promise) result.catch(() => undefined);
    } catch {
      // An observer's failure is not the verification's.
    }
  }
}

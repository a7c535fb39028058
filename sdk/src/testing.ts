import { type Answer, type PolicyOptions, VerifierCore } from './core';
import type { ApiInvalidReason, Effort, NonceFacts, UnverifiedError } from './types';

export type { NonceVerifier, Verdict } from './types';

/** A fixed answer for every well-formed nonce, as Gatehouse's test keys give (`testVerdict`). */
export type FakeAnswer = 'valid' | ApiInvalidReason | 'unavailable' | { readonly unverified: UnverifiedError };

export interface FakeVerifierOptions extends PolicyOptions {
  /**
   * Answer this for every well-formed nonce instead of keeping a table: `valid`, `unknown`,
   * `expired`, `already_used`, `unavailable` (unverified `server`) or `{unverified: 'timeout'}`.
   */
  readonly answer?: FakeAnswer;
  /** What a valid nonce says of itself, unless `issueNonce` is told otherwise. */
  readonly hostname?: string | null;
  readonly effort?: Effort | null;
}

const DEFAULT_EFFORT: Effort = { algorithm: 'PBKDF2/SHA-256', cost: 1000, expectedSolveMs: 400, solveMs: 600, surge: false };

/** A nonce the fake issued: it looks like Gatehouse's, but no Gatehouse knows it. */
const FAKE_PREFIX = 'ghn_fake_';

/**
 * A verifier for your tests, without Gatehouse: as the real one, it refuses malformed nonces
 * without asking, applies your checks and your failure policy, calls onVerify; and it keeps its
 * own nonces, each valid once (`issueNonce()`), any other string `unknown` — or answers one fixed
 * verdict for everything (`answer`). It records every nonce asked about in `verified`.
 *
 *     const gate = new FakeVerifier();
 *     app.post('/signup', gatehouse(gate), handler);
 *     await post('/signup', { 'gatehouse-nonce': gate.issueNonce() });   // passes
 */
export class FakeVerifier extends VerifierCore {
  /** The nonces asked about (well-formed ones only: malformed ones never reach Gatehouse either). */
  readonly verified: string[] = [];
  private readonly issued = new Map<string, NonceFacts & { used: boolean }>();
  private count = 0;

  constructor(private readonly options: FakeVerifierOptions = {}) {
    super(options);
  }

  /** A new nonce, valid once; `facts` override what it says of itself (hostname, effort, issuedAt). */
  issueNonce(facts: Partial<NonceFacts> = {}): string {
    const nonce = `${FAKE_PREFIX}${++this.count}_${Math.random().toString(36).slice(2, 10)}`;
    this.issued.set(nonce, {
      issuedAt: facts.issuedAt ?? new Date(Math.floor(Date.now() / 1000) * 1000),
      hostname: facts.hostname !== undefined ? facts.hostname : (this.options.hostname ?? null),
      effort: facts.effort !== undefined ? facts.effort : this.options.effort !== undefined ? this.options.effort : DEFAULT_EFFORT,
      used: false,
    });
    return nonce;
  }

  protected ask(nonce: string): Promise<Answer> {
    this.verified.push(nonce);
    const answer = this.options.answer;
    const facts = (): NonceFacts => ({
      issuedAt: new Date(Math.floor(Date.now() / 1000) * 1000),
      hostname: this.options.hostname ?? null,
      effort: this.options.effort !== undefined ? this.options.effort : DEFAULT_EFFORT,
    });
    if (answer === 'valid') return Promise.resolve({ outcome: 'valid', facts: facts(), replayed: false, attempts: 1 });
    if (answer === 'unavailable')
      return Promise.resolve({
        outcome: 'unverified',
        error: 'server',
        message: 'Fake: Gatehouse unavailable (503).',
        status: 503,
        attempts: 3,
      });
    if (typeof answer === 'object')
      return Promise.resolve({ outcome: 'unverified', error: answer.unverified, message: `Fake: ${answer.unverified}.`, attempts: 3 });
    if (answer !== undefined) return Promise.resolve({ outcome: 'invalid', reason: answer, message: `Fake: ${answer}.`, attempts: 1 });
    const entry = this.issued.get(nonce);
    if (entry === undefined)
      return Promise.resolve({ outcome: 'invalid', reason: 'unknown', message: 'Fake: not a nonce it issued.', attempts: 1 });
    if (entry.used) return Promise.resolve({ outcome: 'invalid', reason: 'already_used', message: 'Fake: verified before.', attempts: 1 });
    entry.used = true;
    const { issuedAt, hostname, effort } = entry;
    return Promise.resolve({ outcome: 'valid', facts: { issuedAt, hostname, effort }, replayed: false, attempts: 1 });
  }
}

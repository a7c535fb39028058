import { Inject, Injectable } from '@nestjs/common';
import type { ApiKeyPrincipal } from '../common/principal';
import { AppError } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { resolveWidgetSecrets } from '../config/secrets';
import { normalizeOrigin } from '../cors/origins';
import { Metrics } from '../metrics/metrics';
import { IssuedNonceDto } from '../nonces/dto/nonce.dto';
import type { Effort } from '../nonces/nonce-token';
import { NoncesService } from '../nonces/nonces.service';
import { PlanLimitsService } from '../plans/plan-limits.service';
import { UsageRecorder } from '../usage/usage.recorder';
import { ChallengeDto } from './dto/challenge.dto';
import { DEFAULT_WAIT_MS, POW_ALGORITHM, expectedSolveMs, makeChallenge, maxCounter, powKeys, type PowKeys, type WaitLevel } from './pow';
import { checkSolution, type SolutionRefusal, type VerifiedSolution } from './solution';
import { SURGED, solveBucket } from './solve-times';
import { SurgeMeter } from './surge';
import { SurgeLog } from './surge-log';

/** How long a challenge may be solved and redeemed. */
export const CHALLENGE_TTL_MS = 300_000;
/** Difficulty of Gatehouse's own sign-up challenge: the default visitor wait. */
export const SIGNUP_WAIT_MS: WaitLevel = DEFAULT_WAIT_MS;

const CHALLENGE_FAILED = 'challenge_failed';
/** 422 challenge_failed, saying so when the work was done but too late. */
const refusal = (reason: SolutionRefusal): AppError =>
  new AppError(
    CHALLENGE_FAILED,
    reason === 'expired' ? 'This challenge expired before its solution was sent; solve a new challenge.' : undefined,
  );

/**
 * The widget's proof of work (docs/API.md, "Challenges"): ALTCHA v2 PBKDF2 challenges in counter
 * mode (pow.ts), signed with WIDGET_SECRETS, bound to the key they were issued to, and each
 * solution exchanged for at most one nonce, which carries what the work cost (its effort).
 */
@Injectable()
export class ChallengesService {
  private readonly keys: readonly PowKeys[];
  /** Challenges per key, and per visitor (key + client IP): either surging raises the difficulty. */
  private readonly keySurge = new SurgeMeter({ floorPerMinute: 10, max: 50_000 });
  private readonly visitorSurge = new SurgeMeter({ floorPerMinute: 3, max: 100_000 });

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly plans: PlanLimitsService,
    private readonly nonces: NoncesService,
    private readonly usage: UsageRecorder,
    private readonly surges: SurgeLog,
    private readonly metrics: Metrics,
  ) {
    this.keys = resolveWidgetSecrets(config).map(powKeys);
  }

  /** The difficulty in force for a key: its own visitor wait, else its plan's. */
  async waitFor(key: Pick<ApiKeyPrincipal, 'accountId' | 'challengeWaitMs'>): Promise<WaitLevel> {
    const wait =
      key.challengeWaitMs ?? (this.plans.cached(key.accountId) ?? (await this.plans.limitsFor(key.accountId))).plan.challengeWaitMs;
    return wait as WaitLevel;
  }

  async issue(key: ApiKeyPrincipal, visitorIp: string): Promise<ChallengeDto> {
    const keyLevel = this.keySurge.hit(key.keyId);
    if (keyLevel > 0) this.surges.observe(key.keyId, key.accountId, keyLevel);
    const surge = Math.max(keyLevel, this.visitorSurge.hit(`${key.keyId}|${visitorIp}`));
    const challenge = await this.make({ key: key.keyId }, maxCounter(await this.waitFor(key), surge), surge);
    this.usage.event(key, 'challenge_issued');
    if (surge > 0) this.usage.tally(key, SURGED);
    return challenge;
  }

  /**
   * A nonce for a correct, unexpired solution of a challenge issued to this key — once: the
   * solution is claimed in the nonces' SpentStore, so of any number of redemptions on any number
   * of instances exactly one gets a nonce.
   */
  async redeem(key: ApiKeyPrincipal, altcha: string, origin: string | undefined): Promise<IssuedNonceDto> {
    const now = Date.now();
    const solution = checkSolution(altcha, { key: key.keyId }, this.keys, now);
    if (solution === 'invalid' || solution === 'expired') {
      this.usage.challengeFailed(key, solution);
      throw refusal(solution);
    }
    const page = origin === undefined ? undefined : normalizeOrigin(origin);
    const effort = effortOf(solution, now);
    const issued = await this.nonces.issue(key, {
      solutionId: solution.solutionId,
      challengeExpiresAtMs: solution.expiresAtMs,
      hostname: page === undefined ? null : new URL(page).hostname,
      effort,
    });
    if (issued === undefined) {
      this.usage.challengeFailed(key, 'already_used');
      throw new AppError(CHALLENGE_FAILED, 'This solution was already exchanged for a nonce; solve a new challenge.');
    }
    this.usage.event(key, 'challenge_solved');
    this.usage.tally(key, solveBucket(effort.solveMs));
    return issued;
  }

  /**
   * A challenge for Gatehouse's own sign-up form: bound to the purpose `signup` instead of a key, at
   * SIGNUP_WAIT_MS, raised like a visitor's under a surge from one client IP.
   */
  issueForSignup(visitorIp: string): Promise<ChallengeDto> {
    const surge = this.visitorSurge.hit(`signup|${visitorIp}`);
    return this.make({ purpose: 'signup' }, maxCounter(SIGNUP_WAIT_MS, surge), surge);
  }

  /**
   * A correct, unexpired solution of a sign-up challenge, spent here: the same solution again, on
   * any instance, is refused (the nonces' SpentStore). Anything else is 422 challenge_failed.
   */
  async spendSignupSolution(altcha: string): Promise<void> {
    const solution = checkSolution(altcha, { purpose: 'signup' }, this.keys);
    if (solution === 'invalid' || solution === 'expired') {
      throw refusal(solution);
    }
    if (!(await this.nonces.claimSolution(solution.solutionId, solution.expiresAtMs))) {
      throw new AppError(CHALLENGE_FAILED, 'This solution was already used; solve a new challenge.');
    }
  }

  /** One derivation, counted (gatehouse_widget_derivations_total), signed with the first secret. */
  private async make(binding: { key: string } | { purpose: 'signup' }, max: number, surge: number): Promise<ChallengeDto> {
    this.metrics.derivation();
    return (await makeChallenge(this.keys[0], { binding, max, surge, ttlMs: CHALLENGE_TTL_MS })) as unknown as ChallengeDto;
  }
}

function effortOf(solution: VerifiedSolution, now: number): Effort {
  return {
    algorithm: POW_ALGORITHM,
    cost: solution.cost,
    expectedSolveMs: expectedSolveMs(solution.counter),
    solveMs: Math.max(0, now - solution.issuedAtMs),
    surgeLevel: solution.surge,
  };
}

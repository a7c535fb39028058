import { Inject, Injectable } from '@nestjs/common';
import { createChallenge } from 'altcha-lib/v1';
import type { ApiKeyPrincipal } from '../common/principal';
import { AppError } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { resolveWidgetSecrets } from '../config/secrets';
import { normalizeOrigin } from '../cors/origins';
import { IssuedNonceDto } from '../nonces/dto/nonce.dto';
import { NoncesService } from '../nonces/nonces.service';
import { PlanLimitsService } from '../plans/plan-limits.service';
import { UsageRecorder } from '../usage/usage.recorder';
import { ChallengeDto } from './dto/challenge.dto';
import { expiresAtMs, spentHash, verifiedSolution } from './solution';
import { SurgeMeter } from './surge';
import { SurgeLog } from './surge-log';

/** How long a challenge may be solved and redeemed. */
export const CHALLENGE_TTL_MS = 300_000;
/** Difficulty of Gatehouse's own sign-up challenge (as the free plan's widget). */
export const SIGNUP_MAX_NUMBER = 100_000;

const CHALLENGE_FAILED = 'challenge_failed';

/**
 * The widget's proof of work (docs/API.md, "Challenges"): ALTCHA challenges made and checked by
 * altcha-lib, signed with WIDGET_SECRETS, bound to the key they were issued to, and each solution
 * exchanged for at most one nonce.
 */
@Injectable()
export class ChallengesService {
  private readonly secrets: readonly string[];
  /** Challenges per key, and per visitor (key + client IP): either surging raises the difficulty. */
  private readonly keySurge = new SurgeMeter({ floorPerMinute: 10, max: 50_000 });
  private readonly visitorSurge = new SurgeMeter({ floorPerMinute: 3, max: 100_000 });

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly plans: PlanLimitsService,
    private readonly nonces: NoncesService,
    private readonly usage: UsageRecorder,
    private readonly surges: SurgeLog,
  ) {
    this.secrets = resolveWidgetSecrets(config);
  }

  async issue(key: ApiKeyPrincipal, visitorIp: string): Promise<ChallengeDto> {
    const keyLevel = this.keySurge.hit(key.keyId);
    if (keyLevel > 0) this.surges.observe(key.keyId, key.accountId, keyLevel);
    const level = Math.max(keyLevel, this.visitorSurge.hit(`${key.keyId}|${visitorIp}`));
    const base = key.challengeMaxNumber ?? (await this.plans.limitsFor(key.accountId)).plan.challengeMaxNumber;
    const challenge = await createChallenge({
      algorithm: 'SHA-256',
      hmacKey: this.secrets[0],
      maxnumber: base * 2 ** level,
      expires: new Date(Date.now() + CHALLENGE_TTL_MS),
      params: { key: key.keyId },
    });
    this.usage.event(key, 'challenge_issued');
    return { ...challenge, algorithm: 'SHA-256', maxnumber: base * 2 ** level };
  }

  /**
   * A nonce for a correct, unexpired solution of a challenge issued to this key — once: the
   * solution is claimed in the nonces' SpentStore, so of any number of redemptions on any number
   * of instances exactly one gets a nonce.
   */
  async redeem(key: ApiKeyPrincipal, altcha: string, origin: string | undefined): Promise<IssuedNonceDto> {
    const solution = await verifiedSolution(altcha, { key: key.keyId }, this.secrets);
    if (solution === undefined) {
      this.usage.event(key, 'challenge_failed');
      throw new AppError(CHALLENGE_FAILED);
    }
    const page = origin === undefined ? undefined : normalizeOrigin(origin);
    const issued = await this.nonces.issue(key, {
      solutionId: spentHash(solution),
      challengeExpiresAtMs: expiresAtMs(solution),
      hostname: page === undefined ? null : new URL(page).hostname,
    });
    if (issued === undefined) {
      this.usage.event(key, 'challenge_failed');
      throw new AppError(CHALLENGE_FAILED, 'This solution was already exchanged for a nonce; solve a new challenge.');
    }
    this.usage.event(key, 'challenge_solved');
    return issued;
  }

  /**
   * A challenge for Gatehouse's own sign-up form: bound to the purpose `signup` instead of a key, at
   * SIGNUP_MAX_NUMBER, raised like a visitor's under a surge from one client IP.
   */
  async issueForSignup(visitorIp: string): Promise<ChallengeDto> {
    const maxnumber = SIGNUP_MAX_NUMBER * 2 ** this.visitorSurge.hit(`signup|${visitorIp}`);
    const challenge = await createChallenge({
      algorithm: 'SHA-256',
      hmacKey: this.secrets[0],
      maxnumber,
      expires: new Date(Date.now() + CHALLENGE_TTL_MS),
      params: { purpose: 'signup' },
    });
    return { ...challenge, algorithm: 'SHA-256', maxnumber };
  }

  /**
   * A correct, unexpired solution of a sign-up challenge, spent here: the same solution again, on
   * any instance, is refused (the nonces' SpentStore). Anything else is 422 challenge_failed.
   */
  async spendSignupSolution(altcha: string): Promise<void> {
    const solution = await verifiedSolution(altcha, { purpose: 'signup' }, this.secrets);
    if (solution === undefined) {
      throw new AppError(CHALLENGE_FAILED);
    }
    if (!(await this.nonces.claimSolution(spentHash(solution), expiresAtMs(solution)))) {
      throw new AppError(CHALLENGE_FAILED, 'This solution was already used; solve a new challenge.');
    }
  }
}

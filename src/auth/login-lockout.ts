import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AppError } from '../common/errors/app-error';
import { verifyPassword } from '../credentials/passwords';
import { RateLimitService } from '../rate-limit/rate-limit.service';

/**
 * At most N failed logins per email and client IP per window (docs/API.md, "Rate limits"), counted
 * where the rate limits are. Per client, not per email alone: counted per email, anyone could lock a
 * user out (the right password included) by failing ten times from anywhere (docs/DECISIONS.md,
 * "Rate limiting").
 */
@Injectable()
export class LoginLockout {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly rateLimits: RateLimitService,
  ) {}

  async assertNotLocked(email: string, client: string): Promise<void> {
    const { hits, timeToExpire } = await this.rateLimits.peek(this.key(email, client));
    if (hits >= this.config.limits.loginFailuresPerEmail) {
      throw new AppError('rate_limit_exceeded', 'Too many failed logins for this email from this address; retry later.').withRetryAfter(
        timeToExpire,
      );
    }
  }

  /** Counts a failure; the answer says how many more this email and client may make before the pause. */
  async recordFailure(email: string, client: string): Promise<{ attemptsLeft: number; pauseMinutes: number }> {
    const { loginFailuresPerEmail, loginFailureWindowSeconds } = this.config.limits;
    const state = await this.rateLimits.hit(this.key(email, client), loginFailuresPerEmail, loginFailureWindowSeconds * 1000);
    return { attemptsLeft: state.remaining, pauseMinutes: Math.ceil(loginFailureWindowSeconds / 60) };
  }

  /**
   * A signed-in person's own password, asked again before a sensitive change, checked as a login
   * checks it: refused while locked out, a wrong one counted. A wrong one is a 400 on `field`.
   */
  async confirmPassword(
    user: { email: string; passwordHash: string },
    password: string,
    client: string,
    field: 'password' | 'currentPassword',
  ): Promise<void> {
    await this.assertNotLocked(user.email, client);
    if (await verifyPassword(user.passwordHash, password)) return;
    await this.recordFailure(user.email, client);
    const which = field === 'currentPassword' ? 'current password' : 'password';
    throw new AppError('validation_failed', `The ${which} is wrong.`, [{ field, message: `${field} is wrong` }]);
  }

  private key(email: string, client: string): string {
    return `login-failures:${email}|${client}`;
  }
}

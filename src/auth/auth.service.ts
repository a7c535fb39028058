import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { CacheInvalidation } from '../cache/invalidation.service';
import { normalizeEmail } from '../common/email';
import { AppError } from '../common/errors/app-error';
import { PlanLimitsService } from '../plans/plan-limits.service';
import { PrismaService } from '../prisma/prisma.service';
import { CHALLENGE } from '../common/errors/challenges';
import type { Actor, RequestSource } from '../common/current-principal.decorator';
import { TokenResponseDto } from '../credentials/dto/login.dto';
import { MeDto, SETTING_LIMITS } from './dto/me.dto';
import { LoginLockout } from './login-lockout';
import { hashPassword, passwordProblems, verifyLogin } from '../credentials/passwords';
import type { UserPrincipal } from '../common/principal';
import { SessionService } from '../credentials/session.service';
import type { MfaRequiredDto } from './mfa/dto/mfa.dto';
import { MfaService } from './mfa/mfa.service';
import { SignInService } from './sign-in.service';

@Injectable()
export class AuthService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(AuthService.name);
  private janitor?: NodeJS.Timeout;

  constructor(
    private readonly prisma: PrismaService,
    private readonly sessions: SessionService,
    private readonly lockout: LoginLockout,
    private readonly invalidation: CacheInvalidation,
    private readonly audit: AuditService,
    private readonly accounts: PlanLimitsService,
    private readonly mfa: MfaService,
    private readonly signIn: SignInService,
  ) {}

  /** Unknown email and wrong password answer alike, in the same time (see verifyLogin). */
  /** A user with a second factor gets its step to complete (MfaRequiredDto) instead of a token. */
  async login(rawEmail: string, password: string, client: RequestSource): Promise<TokenResponseDto | MfaRequiredDto> {
    const { requestId, ip } = client;
    const email = normalizeEmail(rawEmail);
    await this.lockout.assertNotLocked(email, ip);
    const select = { id: true, accountId: true, passwordHash: true, tokenVersion: true, emailConfirmedAt: true } as const;
    const { user, verified, rehashed } = await verifyLogin(() => this.prisma.user.findUnique({ where: { email }, select }), password);
    if (verified && user !== null && rehashed !== undefined) {
      // The hash was made with older parameters: the same password, hashed as hashPassword hashes now.
      // Only over the hash just verified, so a password changed meanwhile stays.
      await this.prisma.user.updateMany({ where: { id: user.id, passwordHash: user.passwordHash }, data: { passwordHash: rehashed } });
    }
    if (!verified || user === null) {
      const { attemptsLeft, pauseMinutes } = await this.lockout.recordFailure(email, ip);
      if (user !== null)
        await this.audit.record(this.prisma, {
          accountId: user.accountId,
          action: 'auth.login_failed',
          actorEmail: email,
          requestId,
          ip,
          target: { type: 'user', id: user.id },
        });
      // Said alike for unknown emails and wrong passwords: both count, per email and client.
      throw new AppError(
        'invalid_credentials',
        attemptsLeft > 0
          ? `The email or password is wrong. ${attemptsLeft} more ${attemptsLeft === 1 ? 'attempt' : 'attempts'} from here before sign-in pauses for ${pauseMinutes} minutes.`
          : `The email or password is wrong. Sign-in from here now pauses for ${pauseMinutes} minutes.`,
      ).withChallenge(CHALLENGE.bearer);
    }
    if (user.emailConfirmedAt === null) {
      // Said only to whoever knows the password.
      throw new AppError('invalid_credentials', 'Confirm your email address first: follow the link we e-mailed you.').withChallenge(
        CHALLENGE.bearer,
      );
    }
    return (await this.mfa.secondStep(user.id)) ?? this.signIn.complete({ ...user, email }, client, 'password');
  }

  /** After a password reset: signed in (a session by password_reset), or asked for the second factor when the user has one. */
  async afterPasswordReset(user: { id: string; tokenVersion: number }, client: RequestSource): Promise<TokenResponseDto | MfaRequiredDto> {
    return (await this.mfa.secondStep(user.id)) ?? this.sessions.start(this.prisma, user, 'password_reset', client);
  }

  /** From the caches the request path already holds (the principal, the account's plan): no database round trip once warm. */
  async me(user: UserPrincipal): Promise<MeDto> {
    const account = await this.accounts.limitsFor(user.accountId);
    return {
      id: user.userId,
      email: user.email,
      role: user.role,
      account: { id: user.accountId, name: account.accountName },
      plan: account.plan,
      limits: SETTING_LIMITS,
    };
  }

  /** Every token issued before answers invalid_token, and its session ends, from now on; the answer is a fresh one. */
  async changePassword(actor: Actor, currentPassword: string, newPassword: string, ip: string): Promise<TokenResponseDto> {
    const user = await this.prisma.user.findUniqueOrThrow({ where: { id: actor.userId } });
    await this.lockout.confirmPassword(user, currentPassword, ip, 'currentPassword');
    const problems = passwordProblems(newPassword, user.email, 'newPassword');
    if (problems.length > 0) throw new AppError('validation_failed', 'The new password does not meet the policy.', problems);
    const passwordHash = await hashPassword(newPassword);
    const issued = await this.prisma.$transaction(async (tx) => {
      await this.audit.recordBy(tx, actor, 'auth.password_changed', { type: 'user', id: user.id });
      const updated = await tx.user.update({ where: { id: user.id }, data: { passwordHash, tokenVersion: { increment: 1 } } });
      await this.sessions.endAllOf(tx, user.id);
      return this.sessions.start(tx, updated, 'password_change', actor);
    });
    this.invalidation.invalidate('user', user.id);
    return issued;
  }

  /**
   * Signs the token's session out: its `jti`, which every token of the session carries, is refused
   * from the next request on, on every instance (the `user` topic is invalidated, and the user's cache
   * entry carries the revoked ids). Kept until the session's expiry (a short-lived token's own `exp`
   * comes sooner), then purged.
   */
  async logout(actor: Actor, token: { jti: string; exp: number }): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const session = await tx.session.findUnique({ where: { id: token.jti }, select: { expiresAt: true } });
      const expiresAt = new Date(Math.max(token.exp * 1000, session?.expiresAt.getTime() ?? 0));
      await tx.revokedToken.createMany({ data: [{ jti: token.jti, userId: actor.userId, expiresAt }], skipDuplicates: true });
      await tx.session.updateMany({ where: { id: token.jti, endedAt: null }, data: { endedAt: new Date() } });
      await this.audit.recordBy(tx, actor, 'auth.logout', { type: 'user', id: actor.userId });
    });
    this.invalidation.invalidate('user', actor.userId);
  }

  /** Revoked tokens past their expiry refuse themselves: their rows go (hourly). */
  purgeRevokedTokens(now = new Date()): Promise<{ count: number }> {
    return this.prisma.revokedToken.deleteMany({ where: { expiresAt: { lte: now } } });
  }

  onModuleInit(): void {
    this.janitor = setInterval(
      () =>
        void Promise.all([this.purgeRevokedTokens(), this.mfa.purgeExpiredSteps()]).catch((err: Error) =>
          this.logger.warn(`Revoked token purge failed: ${err.message}`),
        ),
      3600_000,
    );
    this.janitor.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.janitor);
  }
}

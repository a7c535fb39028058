import { Inject, Injectable, Logger } from '@nestjs/common';
import { generateSecret, generateURI, verifySync } from 'otplib';
import { AuditService } from '../../audit/audit.service';
import type { Prisma } from '../../generated/prisma/client';
import { CacheInvalidation } from '../../cache/invalidation.service';
import type { Actor, RequestSource } from '../../common/current-principal.decorator';
import { AppError } from '../../common/errors/app-error';
import { CHALLENGE } from '../../common/errors/challenges';
import { hashOneTimeToken, newOneTimeToken } from '../../common/one-time-token';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { resolveMfaKey } from '../../config/secrets';
import type { TokenResponseDto } from '../../credentials/dto/login.dto';
import { PrismaService } from '../../prisma/prisma.service';
import { LoginLockout } from '../login-lockout';
import { SignInService, SigningInUser, SignInMethod } from '../sign-in.service';
import { MfaMethod, MfaRequiredDto, MfaStatusDto, RecoveryCodesDto, TotpEnrolmentDto } from './dto/mfa.dto';
import { newRecoveryCodes, normalizeRecoveryCode } from './recovery-codes';
import { SecretBox } from './secret-box';

/** How long a sign-in's second step may take, and how many wrong codes end it. */
export const MFA_TOKEN_TTL_MS = 5 * 60_000;
export const MFA_TOKEN_FAILURES = 5;
/** A code of the period before or after the current one is accepted too (clocks drift, people type slowly). */
const TOTP_TOLERANCE_SECONDS = 30;
const TOTP_ISSUER = 'Gatehouse';

const SIGNING_IN = {
  id: true,
  accountId: true,
  email: true,
  tokenVersion: true,
  totpSecret: true,
  totpConfirmedAt: true,
  totpLastStep: true,
} as const;
type SigningInWithTotp = SigningInUser & { totpSecret: string | null; totpConfirmedAt: Date | null; totpLastStep: number | null };

const expiredStep = () =>
  new AppError('invalid_credentials', 'This sign-in step has expired or was used: sign in again with your password.').withChallenge(
    CHALLENGE.bearer,
  );

/**
 * Second factors (docs/API.md, "Second factors"): TOTP (RFC 6238, otplib) with ten single-use
 * recovery codes, and the second step of a sign-in (`mfaToken`) that a code or a passkey completes.
 * The TOTP secret is sealed at rest with the operator's MFA key; a code is accepted once (the
 * step of the last one is kept); wrong codes count toward the login lockout as wrong passwords do.
 */
@Injectable()
export class MfaService {
  private readonly logger = new Logger(MfaService.name);
  private readonly box: SecretBox;

  constructor(
    private readonly prisma: PrismaService,
    private readonly signIn: SignInService,
    private readonly lockout: LoginLockout,
    private readonly audit: AuditService,
    private readonly invalidation: CacheInvalidation,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.box = new SecretBox(resolveMfaKey(config));
  }

  async status(actor: Actor): Promise<MfaStatusDto> {
    const user = await this.prisma.user.findUniqueOrThrow({
      where: { id: actor.userId },
      select: {
        totpConfirmedAt: true,
        account: { select: { requireMfa: true } },
        _count: { select: { passkeys: true, recoveryCodes: { where: { usedAt: null } } } },
      },
    });
    return {
      totp: user.totpConfirmedAt !== null,
      passkeys: user._count.passkeys,
      recoveryCodesLeft: user._count.recoveryCodes,
      required: user.account.requireMfa,
    };
  }

  /** The second factors `userId` has; none: the first factor signs in alone. */
  async methodsOf(userId: string): Promise<MfaMethod[]> {
    const user = await this.prisma.user.findUnique({
      where: { id: userId },
      select: { totpConfirmedAt: true, _count: { select: { passkeys: true, recoveryCodes: { where: { usedAt: null } } } } },
    });
    if (user === null) return [];
    const methods: MfaMethod[] = [];
    if (user.totpConfirmedAt !== null) methods.push('totp');
    if (user._count.passkeys > 0) methods.push('passkey');
    if (methods.length > 0 && user._count.recoveryCodes > 0) methods.push('recovery_code');
    return methods;
  }

  /** After a right password: the second step when the user has a second factor, else undefined. */
  async secondStep(userId: string): Promise<MfaRequiredDto | undefined> {
    const methods = await this.methodsOf(userId);
    if (methods.length === 0) return undefined;
    const mfaToken = newOneTimeToken('ghm');
    await this.prisma.mfaChallenge.create({
      data: { tokenHash: hashOneTimeToken(mfaToken), userId, method: 'password', expiresAt: new Date(Date.now() + MFA_TOKEN_TTL_MS) },
    });
    return { mfaRequired: true, mfaToken, methods };
  }

  /** The user whose second step `mfaToken` is, while it lives. */
  async userOfStep(mfaToken: string): Promise<{ stepId: string; user: SigningInWithTotp }> {
    const step = await this.prisma.mfaChallenge.findUnique({
      where: { tokenHash: hashOneTimeToken(mfaToken) },
      select: { id: true, expiresAt: true, user: { select: SIGNING_IN } },
    });
    if (step === null || step.expiresAt <= new Date()) throw expiredStep();
    return { stepId: step.id, user: step.user };
  }

  /** Ends the second step with its factor verified: once, however many requests race with it. */
  async completeStep(stepId: string, user: SigningInUser, client: RequestSource, method: SignInMethod): Promise<TokenResponseDto> {
    const { count } = await this.prisma.mfaChallenge.deleteMany({ where: { id: stepId, expiresAt: { gt: new Date() } } });
    if (count === 0) throw expiredStep();
    return this.signIn.complete(user, client, method);
  }

  /** A wrong second factor: counted toward the lockout, and five end the step. */
  async failStep(stepId: string, user: SigningInUser, client: RequestSource, method: SignInMethod): Promise<never> {
    await this.lockout.recordFailure(user.email, client.ip);
    const step = await this.prisma.mfaChallenge
      .update({ where: { id: stepId }, data: { failures: { increment: 1 } }, select: { failures: true } })
      .catch(() => null);
    if (step !== null && step.failures >= MFA_TOKEN_FAILURES) await this.prisma.mfaChallenge.deleteMany({ where: { id: stepId } });
    await this.audit.record(this.prisma, {
      accountId: user.accountId,
      action: 'auth.login_failed',
      actorEmail: user.email,
      requestId: client.requestId,
      ip: client.ip,
      target: { type: 'user', id: user.id },
      details: { method },
    });
    throw new AppError(
      'invalid_credentials',
      method === 'passkey' ? 'The passkey was not accepted.' : 'The code is wrong, expired or was used already.',
    ).withChallenge(CHALLENGE.bearer);
  }

  /** POST /auth/login/mfa: a TOTP code (6 digits) or a recovery code completes the second step. */
  async completeWithCode(mfaToken: string, code: string, client: RequestSource): Promise<TokenResponseDto> {
    const { stepId, user } = await this.userOfStep(mfaToken);
    await this.lockout.assertNotLocked(user.email, client.ip);
    const totp = /^\s*\d{6}\s*$/.test(code);
    const method = totp ? 'totp' : 'recovery_code';
    const accepted = totp ? await this.useTotpCode(user, code.trim()) : await this.useRecoveryCode(user, code, client);
    if (!accepted) return this.failStep(stepId, user, client, method);
    return this.completeStep(stepId, user, client, method);
  }

  /** Enrolment, step one: a new secret, pending until a code confirms it (a pending one is replaced). */
  async startTotp(actor: Actor): Promise<TotpEnrolmentDto> {
    const user = await this.prisma.user.findUniqueOrThrow({ where: { id: actor.userId }, select: { email: true, totpConfirmedAt: true } });
    if (user.totpConfirmedAt !== null)
      throw new AppError('conflict', 'An authenticator app is on already; remove it first to enrol another.');
    const secret = generateSecret();
    await this.prisma.user.updateMany({
      where: { id: actor.userId, totpConfirmedAt: null },
      data: { totpSecret: this.box.seal(secret, actor.userId), totpLastStep: null },
    });
    return { secret, otpauthUrl: generateURI({ issuer: TOTP_ISSUER, label: user.email, secret }) };
  }

  /** Enrolment, step two: a right code turns TOTP on and hands out ten recovery codes (once). */
  async confirmTotp(actor: Actor, code: string): Promise<RecoveryCodesDto> {
    const user = await this.prisma.user.findUniqueOrThrow({ where: { id: actor.userId }, select: SIGNING_IN });
    if (user.totpConfirmedAt !== null) throw new AppError('conflict', 'The authenticator app is on already.');
    if (user.totpSecret === null) throw new AppError('conflict', 'Start with POST /api/v1/auth/mfa/totp: there is no secret to confirm.');
    await this.lockout.assertNotLocked(user.email, actor.ip);
    const step = this.totpStep(user, code);
    if (step === undefined) {
      await this.lockout.recordFailure(user.email, actor.ip);
      throw new AppError('validation_failed', 'The code is wrong: enter the one the app shows now.', [
        { field: 'code', message: 'code does not match the new secret' },
      ]);
    }
    const recoveryCodes = newRecoveryCodes();
    await this.prisma.$transaction(async (tx) => {
      const { count } = await tx.user.updateMany({
        where: { id: user.id, totpConfirmedAt: null, totpSecret: user.totpSecret },
        data: { totpConfirmedAt: new Date(), totpLastStep: step },
      });
      if (count === 0) throw new AppError('conflict', 'The enrolment changed meanwhile; start again.');
      await this.replaceRecoveryCodes(tx, user.id, recoveryCodes);
      await this.audit.recordBy(tx, actor, 'auth.mfa_enabled', { type: 'user', id: user.id }, { method: 'totp' });
    });
    this.invalidation.invalidate('user', user.id);
    return { recoveryCodes };
  }

  /** Turns TOTP off (with the password); with no passkey left, the recovery codes go too. */
  async removeTotp(actor: Actor, password: string): Promise<void> {
    await this.confirmPassword(actor, password);
    await this.prisma.$transaction(async (tx) => {
      const { count } = await tx.user.updateMany({
        where: { id: actor.userId, totpConfirmedAt: { not: null } },
        data: { totpSecret: null, totpConfirmedAt: null, totpLastStep: null },
      });
      if (count === 0) throw new AppError('not_found', 'No authenticator app is on.');
      if ((await tx.passkey.count({ where: { userId: actor.userId } })) === 0)
        await tx.recoveryCode.deleteMany({ where: { userId: actor.userId } });
      await this.audit.recordBy(tx, actor, 'auth.mfa_disabled', { type: 'user', id: actor.userId }, { method: 'totp' });
    });
    this.invalidation.invalidate('user', actor.userId);
  }

  /** Ten new recovery codes (with the password); the old ones stop working. */
  async regenerateRecoveryCodes(actor: Actor, password: string): Promise<RecoveryCodesDto> {
    await this.confirmPassword(actor, password);
    if ((await this.methodsOf(actor.userId)).length === 0)
      throw new AppError('conflict', 'Turn on an authenticator app or add a passkey first: recovery codes stand in for them.');
    const recoveryCodes = newRecoveryCodes();
    await this.prisma.$transaction(async (tx) => {
      await this.replaceRecoveryCodes(tx, actor.userId, recoveryCodes);
      await this.audit.recordBy(tx, actor, 'auth.recovery_codes_regenerated', { type: 'user', id: actor.userId });
    });
    return { recoveryCodes };
  }

  /** The password, checked as a login checks it (lockout, failures counted). */
  async confirmPassword(actor: Actor, password: string): Promise<void> {
    const user = await this.prisma.user.findUniqueOrThrow({ where: { id: actor.userId }, select: { email: true, passwordHash: true } });
    await this.lockout.confirmPassword(user, password, actor.ip, 'password');
  }

  private async replaceRecoveryCodes(tx: Prisma.TransactionClient, userId: string, codes: string[]): Promise<void> {
    await tx.recoveryCode.deleteMany({ where: { userId } });
    await tx.recoveryCode.createMany({
      data: codes.map((code) => ({ userId, hash: this.recoveryHash(userId, normalizeRecoveryCode(code)!) })),
    });
  }

  private recoveryHash(userId: string, normalized: string): string {
    return this.box.hash(`${userId}:${normalized}`);
  }

  /** The time step of `code` when it is a right code for the user's secret and newer than the last one used. */
  private totpStep(user: SigningInWithTotp, code: string): number | undefined {
    if (user.totpSecret === null) return undefined;
    const secret = this.box.open(user.totpSecret, user.id);
    if (secret === undefined) {
      this.logger.warn(`The TOTP secret of user ${user.id} does not open with this MFA_ENCRYPTION_KEY: was the key changed?`);
      return undefined;
    }
    const result = verifySync({
      secret,
      token: code,
      epochTolerance: TOTP_TOLERANCE_SECONDS,
      ...(user.totpLastStep === null ? {} : { afterTimeStep: user.totpLastStep }),
    });
    // otplib's functional verify types TOTP and HOTP results alike; a TOTP match carries its time step.
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  }

  /** A right TOTP code, claimed once: its step is stored only over an older one, so a replay (here or elsewhere) loses. */
  private async useTotpCode(user: SigningInWithTotp, code: string): Promise<boolean> {
    if (user.totpConfirmedAt === null) return false;
    const step = this.totpStep(user, code);
    if (step === undefined) return false;
    const { count } = await this.prisma.user.updateMany({
      where: { id: user.id, totpConfirmedAt: { not: null }, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
      data: { totpLastStep: step },
    });
    return count === 1;
  }

  private async useRecoveryCode(user: SigningInUser, typed: string, client: RequestSource): Promise<boolean> {
    const normalized = normalizeRecoveryCode(typed);
    if (normalized === undefined) return false;
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.recoveryCode.updateMany({
        where: { userId: user.id, hash: this.recoveryHash(user.id, normalized), usedAt: null },
        data: { usedAt: new Date() },
      });
      if (count === 0) return false;
      const left = await tx.recoveryCode.count({ where: { userId: user.id, usedAt: null } });
      await this.audit.record(tx, {
        accountId: user.accountId,
        action: 'auth.recovery_code_used',
        actorId: user.id,
        actorEmail: user.email,
        requestId: client.requestId,
        ip: client.ip,
        target: { type: 'user', id: user.id },
        details: { left },
      });
      return true;
    });
  }

  /** Steps past their 5 minutes: their rows go (with the revoked-token purge). */
  purgeExpiredSteps(now = new Date()): Promise<{ count: number }> {
    return this.prisma.mfaChallenge.deleteMany({ where: { expiresAt: { lte: now } } });
  }
}

import { Injectable, Logger } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { CacheInvalidation } from '../cache/invalidation.service';
import { normalizeEmail } from '../common/email';
import { AppError } from '../common/errors/app-error';
import type { Prisma } from '../generated/prisma/client';
import { hashOneTimeToken, newOneTimeToken } from '../common/one-time-token';
import { Mailer } from '../mail/mailer';
import { PrismaService } from '../prisma/prisma.service';
import { CHALLENGE } from '../common/errors/challenges';
import type { Actor, RequestSource } from '../common/current-principal.decorator';
import { PasswordResetIssuedDto } from './dto/login.dto';
import { hashPassword, passwordProblems } from './passwords';
import { SessionService } from './session.service';

export const RESET_TTL_MS = 3600_000;

/**
 * Password resets (docs/API.md, "Login and invitations (no credential)"): a one-time token (1 h) issued by an OWNER or
 * ADMIN for a member, or e-mailed to a user who forgot (SMTP_URL); using it sets the password and
 * ends every earlier token of the user. A new reset ends the user's older ones.
 */
@Injectable()
export class PasswordResetService {
  private readonly logger = new Logger(PasswordResetService.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly sessions: SessionService,
    private readonly invalidation: CacheInvalidation,
    private readonly audit: AuditService,
    private readonly mailer: Mailer,
  ) {}

  /**
   * For a member of the actor's account, whom the team's rules let the actor act on (the caller,
   * TeamService, decides that). E-mailed when SMTP_URL is set.
   */
  async issueFor(actor: Actor, member: { readonly id: string; readonly email: string }): Promise<PasswordResetIssuedDto> {
    const { token, expiresAt } = await this.prisma.$transaction(async (tx) => {
      const issued = await this.create(tx, member.id, actor.userId);
      await this.audit.recordBy(tx, actor, 'team.password_reset_issued', { type: 'user', id: member.id }, { emailed: this.mailer.enabled });
      return issued;
    });
    if (!this.mailer.enabled) return { token, emailed: false, expiresAt: expiresAt.toISOString() };
    this.mailer.sendLater(
      resetMail(member.email, this.mailer.link('/reset-password', token), 'An administrator of your Gatehouse account'),
      'a reset link',
    );
    return { token: null, emailed: true, expiresAt: expiresAt.toISOString() };
  }

  /**
   * "Forgot password" (only with SMTP_URL): answered at once and alike for every email; the look-up
   * and the e-mail happen after the answer, so its time says nothing either.
   */
  request(rawEmail: string): void {
    if (!this.mailer.enabled) throw new AppError('not_found', 'Password reset by e-mail is not enabled (SMTP_URL).');
    const email = normalizeEmail(rawEmail);
    setImmediate(() => void this.sendResetLink(email));
  }

  /** The forgotten-password e-mail, if the address has a user; after the answer, so nothing of it shows there. */
  private async sendResetLink(email: string): Promise<void> {
    try {
      const user = await this.prisma.user.findUnique({ where: { email } });
      if (user === null) return;
      const { token } = await this.prisma.$transaction((tx) => this.create(tx, user.id, null));
      this.mailer.sendLater(resetMail(user.email, this.mailer.link('/reset-password', token), 'Someone (we hope you)'), 'a reset link');
    } catch (err) {
      // By its code, not its message: a database error's text may quote the email.
      const { code, name } = err as { code?: string; name?: string };
      this.logger.warn(`Could not handle a password reset request (${code ?? name ?? 'error'})`);
    }
  }

  /**
   * Sets the password once per token; every earlier token (JWT) of the user, their sessions and every
   * other reset of theirs die. The answer is the user, signed in by the caller (or asked for their
   * second factor: a reset proves the e-mail address, not the second factor).
   */
  async accept(token: string, newPassword: string, source: RequestSource): Promise<{ id: string; tokenVersion: number }> {
    const refused = () =>
      new AppError('invalid_credentials', 'The reset token is unknown, used or expired.').withChallenge(CHALLENGE.bearer);
    const reset = await this.prisma.passwordReset.findUnique({ where: { tokenHash: hashOneTimeToken(token) }, include: { user: true } });
    if (reset === null || reset.usedAt !== null || reset.expiresAt <= new Date()) throw refused();
    const problems = passwordProblems(newPassword, reset.user.email, 'newPassword');
    if (problems.length > 0) throw new AppError('validation_failed', 'The new password does not meet the policy.', problems);
    const passwordHash = await hashPassword(newPassword);
    const user = await this.prisma.$transaction(async (tx) => {
      const now = new Date();
      const claimed = await tx.passwordReset.updateMany({
        where: { id: reset.id, usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      });
      if (claimed.count === 0) throw refused();
      await tx.passwordReset.updateMany({ where: { userId: reset.userId, usedAt: null }, data: { usedAt: now } });
      // A link e-mailed to the address proves it, as the sign-up confirmation would: someone who signed
      // up with another's address and never confirmed it cannot keep its owner out.
      const confirmed = reset.issuedById === null && reset.user.emailConfirmedAt === null ? { emailConfirmedAt: now } : {};
      const updated = await tx.user.update({
        where: { id: reset.userId },
        data: { passwordHash, tokenVersion: { increment: 1 }, ...confirmed },
      });
      await this.audit.record(tx, {
        accountId: updated.accountId,
        action: 'auth.password_reset',
        actorId: updated.id,
        actorEmail: updated.email,
        ...source,
        target: { type: 'user', id: updated.id },
      });
      await this.sessions.endAllOf(tx, updated.id, now);
      return updated;
    });
    this.invalidation.invalidate('user', user.id);
    return user;
  }

  /** A new reset for the user, in `tx`; their earlier ones are used up. */
  private async create(
    tx: Prisma.TransactionClient,
    userId: string,
    issuedById: string | null,
  ): Promise<{ token: string; expiresAt: Date }> {
    const token = newOneTimeToken('ghr');
    const expiresAt = new Date(Date.now() + RESET_TTL_MS);
    await tx.passwordReset.updateMany({ where: { userId, usedAt: null }, data: { usedAt: new Date() } });
    await tx.passwordReset.create({ data: { userId, tokenHash: hashOneTimeToken(token), issuedById, expiresAt } });
    return { token, expiresAt };
  }
}

function resetMail(to: string, link: string, who: string) {
  return {
    to,
    subject: 'Reset your Gatehouse password',
    text: `${who} asked to reset the password of your Gatehouse account ${to}.\n\nSet a new one here (the link works once, for an hour):\n${link}\n\nIf you did not expect this, ignore this message: your password stays as it is.\n`,
  };
}

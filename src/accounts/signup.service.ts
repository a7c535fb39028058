import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import type { RequestSource } from '../common/current-principal.decorator';
import { normalizeEmail } from '../common/email';
import { CHALLENGE } from '../common/errors/challenges';
import { AcceptedDto, TokenResponseDto } from '../credentials/dto/login.dto';
import { SessionService } from '../credentials/session.service';
import { TokenService } from '../credentials/token.service';
import { AppError } from '../common/errors/app-error';
import { Mailer } from '../mail/mailer';
import { PrismaService } from '../prisma/prisma.service';
import { ChallengesService } from '../widget/challenges.service';
import { ChallengeDto } from '../widget/dto/challenge.dto';
import { AccountsService } from './accounts.service';
import { confirmationToken, confirmedUserId } from './confirmation-token';

/** An account whose OWNER never confirmed the address is deleted this long after sign-up. */
export const UNCONFIRMED_RETENTION_MS = 7 * 24 * 3600_000;

/**
 * Sign-up (docs/API.md, "Login and invitations (no credential)"), open only with SIGNUP=open (SignupOpen): a solved challenge
 * first (422 otherwise), then an account and its OWNER — or, when the email has a user, nothing,
 * answered the same way in the same time (the password is hashed either way). With SMTP_URL the
 * OWNER confirms the address by a link before the first sign-in, and the holder of a taken address
 * is told by e-mail instead.
 */
@Injectable()
export class SignupService implements OnModuleInit, OnModuleDestroy {
  private janitor?: NodeJS.Timeout;

  constructor(
    private readonly challenges: ChallengesService,
    private readonly accounts: AccountsService,
    private readonly audit: AuditService,
    private readonly mailer: Mailer,
    private readonly tokens: TokenService,
    private readonly prisma: PrismaService,
    private readonly sessions: SessionService,
  ) {}

  onModuleInit(): void {
    this.janitor = setInterval(() => void this.purgeUnconfirmed().catch(() => undefined), 3600_000);
    this.janitor.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.janitor);
  }

  /**
   * Sign-ups never confirmed, a week on, are deleted with their account (they never held anything
   * else: their OWNER could not sign in), so an address someone else signed up with comes free.
   */
  async purgeUnconfirmed(now = Date.now()): Promise<number> {
    const { count } = await this.prisma.account.deleteMany({
      where: {
        users: { some: {}, every: { emailConfirmedAt: null, createdAt: { lt: new Date(now - UNCONFIRMED_RETENTION_MS) } } },
      },
    });
    return count;
  }

  challenge(ip: string): Promise<ChallengeDto> {
    return this.challenges.issueForSignup(ip);
  }

  async create(
    input: { email: string; password: string; accountName: string; altcha: string },
    source: RequestSource,
  ): Promise<AcceptedDto> {
    await this.challenges.spendSignupSolution(input.altcha);
    const email = normalizeEmail(input.email);
    try {
      const { ownerId } = await this.accounts.createWithOwner(
        { name: input.accountName, email, password: input.password, emailConfirmed: !this.mailer.enabled },
        { ...source, details: { via: 'signup' } },
      );
      if (this.mailer.enabled)
        this.mailer.sendLater(
          confirmationMail(email, this.mailer.link('/confirm-email', confirmationToken(this.tokens.key, ownerId))),
          'a confirmation link',
        );
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'conflict')) throw err; // the email has a user: nothing said here
      if (this.mailer.enabled) this.mailer.sendLater(takenMail(email, this.mailer.publicUrl), 'a sign-up notice');
    }
    return { status: 'accepted' };
  }

  /** Confirms the address once and answers like login; a used, forged or expired link is 401. */
  async confirm(token: string, source: RequestSource): Promise<TokenResponseDto> {
    const refused = () =>
      new AppError('invalid_credentials', 'The confirmation link is unknown, used or expired.').withChallenge(CHALLENGE.bearer);
    const userId = confirmedUserId(this.tokens.key, token);
    if (userId === undefined) throw refused();
    return this.prisma.$transaction(async (tx) => {
      const confirmed = await tx.user.updateMany({ where: { id: userId, emailConfirmedAt: null }, data: { emailConfirmedAt: new Date() } });
      if (confirmed.count === 0) throw refused();
      const found = await tx.user.findUniqueOrThrow({ where: { id: userId } });
      await this.audit.record(tx, {
        accountId: found.accountId,
        action: 'auth.login',
        actorId: found.id,
        actorEmail: found.email,
        ...source,
        target: { type: 'user', id: found.id },
        details: { via: 'email_confirmation' },
      });
      return this.sessions.start(tx, found, 'signup', source);
    });
  }
}

const confirmationMail = (to: string, link: string) => ({
  to,
  subject: 'Confirm your Gatehouse sign-up',
  text: `Welcome to Gatehouse. Confirm your address to sign in (the link works once, for 24 hours):\n${link}\n\nIf you did not sign up, ignore this message.\n`,
});

const takenMail = (to: string, publicUrl: string) => ({
  to,
  subject: 'Someone tried to sign up to Gatehouse with your address',
  text: `Someone tried to create a Gatehouse account with ${to}, which already has one.\n\nIf it was you, sign in at ${publicUrl}/ — or reset your password there if you forgot it. Otherwise, ignore this message.\n`,
});

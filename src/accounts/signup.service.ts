import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { AcceptedDto } from '../auth/dto/login.dto';
import { AppError } from '../common/errors/app-error';
import { ChallengesService } from '../widget/challenges.service';
import { ChallengeDto } from '../widget/dto/challenge.dto';
import { AccountsService } from './accounts.service';

/**
 * Sign-up (docs/API.md, "Sign-up"), open only with SIGNUP=open (SignupOpen): a solved challenge first (422
 * otherwise), then an account and its OWNER — or, when the email has a user, nothing, answered the
 * same way in the same time (the password is hashed either way).
 */
@Injectable()
export class SignupService {
  constructor(
    private readonly challenges: ChallengesService,
    private readonly accounts: AccountsService,
    private readonly audit: AuditService,
  ) {}

  challenge(ip: string): Promise<ChallengeDto> {
    return this.challenges.issueForSignup(ip);
  }

  async create(input: { email: string; password: string; accountName: string; altcha: string }, requestId: string): Promise<AcceptedDto> {
    await this.challenges.spendSignupSolution(input.altcha);
    try {
      const { accountId, ownerId } = await this.accounts.createWithOwner({
        name: input.accountName,
        email: input.email,
        password: input.password,
      });
      await this.audit.record({
        accountId,
        action: 'account.created',
        actorId: ownerId,
        actorEmail: input.email.trim().toLowerCase(),
        requestId,
        target: { type: 'account', id: accountId },
        details: { via: 'signup' },
      });
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'conflict')) throw err; // the email has a user: nothing said
    }
    return { status: 'accepted' };
  }
}

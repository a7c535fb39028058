import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import type { RequestSource } from '../common/current-principal.decorator';
import type { TokenResponseDto } from '../credentials/dto/login.dto';
import { SessionService } from '../credentials/session.service';
import { PrismaService } from '../prisma/prisma.service';

/** How a sign-in was made: the first factor alone, or its second step. */
export type SignInMethod = 'password' | 'totp' | 'recovery_code' | 'passkey';

export interface SigningInUser {
  readonly id: string;
  readonly accountId: string;
  readonly email: string;
  readonly tokenVersion: number;
}

/** The end of every sign-in, whatever its factors: the audited `auth.login` and a token, whose session records `method`. */
@Injectable()
export class SignInService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly sessions: SessionService,
    private readonly audit: AuditService,
  ) {}

  async complete(user: SigningInUser, client: RequestSource, method: SignInMethod): Promise<TokenResponseDto> {
    await this.audit.record(this.prisma, {
      accountId: user.accountId,
      action: 'auth.login',
      actorId: user.id,
      actorEmail: user.email,
      requestId: client.requestId,
      ip: client.ip,
      target: { type: 'user', id: user.id },
      ...(method === 'password' ? {} : { details: { method } }),
    });
    return this.sessions.start(this.prisma, user, method, client);
  }
}

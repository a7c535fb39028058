import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { PrismaService } from '../prisma/prisma.service';
import { CHALLENGE } from './challenges';
import { TokenResponseDto } from './dto/login.dto';
import { LoginLockout } from './login-lockout';
import { verifyPassword } from './passwords';
import { TokenService } from './token.service';

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

@Injectable()
export class AuthService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly tokens: TokenService,
    private readonly lockout: LoginLockout,
  ) {}

  /** Unknown email and wrong password answer alike, in the same time (see verifyPassword). */
  async login(rawEmail: string, password: string): Promise<TokenResponseDto> {
    const email = normalizeEmail(rawEmail);
    await this.lockout.assertNotLocked(email);
    const user = await this.prisma.user.findUnique({ where: { email }, select: { id: true, passwordHash: true, tokenVersion: true } });
    if (!(await verifyPassword(user?.passwordHash ?? null, password)) || user === null) {
      await this.lockout.recordFailure(email);
      throw new AppError('invalid_credentials').withChallenge(CHALLENGE.bearer);
    }
    return this.tokens.issue(user);
  }
}

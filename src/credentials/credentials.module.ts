import { Module } from '@nestjs/common';
import { BrowserSessionService } from './browser-session.service';
import { PasswordResetService } from './password-reset.service';
import { SessionService } from './session.service';
import { TokenService } from './token.service';

/**
 * What proves a person: passwords (policy and hashing), the dashboard's JWTs, one-time password
 * resets, sessions. Used by sign-in (auth), sign-up and invitations (accounts, team); imports no feature
 * that uses it.
 */
@Module({
  providers: [TokenService, PasswordResetService, SessionService, BrowserSessionService],
  exports: [TokenService, PasswordResetService, SessionService, BrowserSessionService],
})
export class CredentialsModule {}

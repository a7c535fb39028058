import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { PlansModule } from '../plans/plans.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { Authenticator } from './authenticator';
import { LoginLockout } from './login-lockout';
import { MfaController } from './mfa/mfa.controller';
import { MfaService } from './mfa/mfa.service';
import { PasskeysController } from './mfa/passkeys.controller';
import { PasskeysService } from './mfa/passkeys.service';
import { SessionTokenController } from './session-token.controller';
import { SessionsController } from './sessions.controller';
import { SignInService } from './sign-in.service';
import { ApiKeyStrategy } from './strategies/api-key.strategy';
import { JwtStrategy } from './strategies/jwt.strategy';
import { UserPrincipalService } from './user-principal.service';

/** Who is calling (API key or JWT → principal, for the AccessGuard), signing in, GET /auth/me, and the caller's sessions. */
@Module({
  imports: [ApiKeysModule, PlansModule, CredentialsModule],
  controllers: [AuthController, MfaController, PasskeysController, SessionsController, SessionTokenController],
  providers: [
    AuthService,
    SignInService,
    MfaService,
    PasskeysService,
    LoginLockout,
    UserPrincipalService,
    ApiKeyStrategy,
    JwtStrategy,
    Authenticator,
  ],
  exports: [Authenticator, UserPrincipalService],
})
export class AuthModule {}

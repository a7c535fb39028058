import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { PlansModule } from '../plans/plans.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { Authenticator } from './guards/authentication';
import { LoginLockout } from './login-lockout';
import { PasswordResetService } from './password-reset.service';
import { ApiKeyStrategy } from './strategies/api-key.strategy';
import { JwtStrategy } from './strategies/jwt.strategy';
import { TokenService } from './token.service';
import { UserPrincipalService } from './user-principal.service';

@Module({
  imports: [ApiKeysModule, PlansModule],
  controllers: [AuthController],
  providers: [
    AuthService,
    PasswordResetService,
    TokenService,
    LoginLockout,
    UserPrincipalService,
    ApiKeyStrategy,
    JwtStrategy,
    Authenticator,
  ],
  exports: [Authenticator, TokenService, UserPrincipalService, PasswordResetService],
})
export class AuthModule {}

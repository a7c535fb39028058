import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { AuthenticationGuard } from './guards/authentication.guard';
import { AuthorizationGuard } from './guards/authorization.guard';
import { ApiKeyAuthGuard, JwtAuthGuard } from './guards/passport.guards';
import { LoginLockout } from './login-lockout';
import { ApiKeyStrategy } from './strategies/api-key.strategy';
import { JwtStrategy } from './strategies/jwt.strategy';
import { TokenService } from './token.service';
import { UserPrincipalService } from './user-principal.service';

@Module({
  imports: [PassportModule, ApiKeysModule],
  controllers: [AuthController],
  providers: [
    AuthService,
    TokenService,
    LoginLockout,
    UserPrincipalService,
    ApiKeyStrategy,
    JwtStrategy,
    ApiKeyAuthGuard,
    JwtAuthGuard,
    AuthenticationGuard,
    AuthorizationGuard,
  ],
  exports: [AuthenticationGuard, AuthorizationGuard, TokenService, UserPrincipalService, ApiKeyAuthGuard, JwtAuthGuard],
})
export class AuthModule {}

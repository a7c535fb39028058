import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { AppError } from '../../common/errors/app-error';
import { TokenPayload, TokenService } from '../token.service';
import { UserPrincipalService } from '../user-principal.service';
import type { UserPrincipal } from '../principal';

/** Bearer JWTs: HS256 only, `iss` and `aud` checked by jsonwebtoken, `exp` required here. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(TokenService) tokens: TokenService,
    private readonly users: UserPrincipalService,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // passport-jwt hands it to jsonwebtoken, which takes a KeyObject; passport-jwt's types lag.
      secretOrKey: tokens.key as unknown as Buffer,
      algorithms: ['HS256'],
      issuer: tokens.issuer,
      audience: tokens.audience,
      ignoreExpiration: false,
    });
  }

  async validate(payload: TokenPayload): Promise<UserPrincipal> {
    if (typeof payload.exp !== 'number' || typeof payload.sub !== 'string' || typeof payload.sv !== 'number') {
      throw new AppError('invalid_token');
    }
    const user = await this.users.find(payload.sub);
    // A password change or removal bumps the version: every token issued before is refused.
    if (user === null || user.tokenVersion !== payload.sv) throw new AppError('invalid_token');
    return user.principal;
  }
}

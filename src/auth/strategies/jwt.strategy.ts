import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Jwt } from 'jsonwebtoken';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { AppError } from '../../common/errors/app-error';
import { SessionService } from '../../credentials/session.service';
import { TokenPayload, TokenService } from '../../credentials/token.service';
import { UserPrincipalService } from '../user-principal.service';
import type { UserPrincipal } from '../../common/principal';

/** How far a token's `iat` may lie ahead of this instance's clock (docs/DECISIONS.md, "Tokens"). */
export const CLOCK_SKEW_SECONDS = 60;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Bearer JWTs: HS256 only, signature, `iss`, `aud` and `exp` checked by jsonwebtoken; the rest of
 * docs/API.md, "JWT (bearer tokens)", asks here — `iat` present and not in the future, a lifetime no
 * longer than we issue, no `crit` header (we understand no extension), a `sub` that is a user id.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(TokenService) private readonly tokens: TokenService,
    private readonly users: UserPrincipalService,
    private readonly sessions: SessionService,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // passport-jwt hands it to jsonwebtoken, which takes a KeyObject; passport-jwt's types lag.
      secretOrKey: tokens.key as unknown as Buffer,
      algorithms: ['HS256'],
      issuer: tokens.issuer,
      audience: tokens.audience,
      ignoreExpiration: false,
      // The header too: `crit` is refused below.
      jsonWebTokenOptions: { complete: true },
    });
  }

  async validate({ header, payload }: Jwt): Promise<UserPrincipal> {
    const claims = payload as Partial<TokenPayload>;
    const now = Math.floor(Date.now() / 1000);
    if (
      'crit' in header ||
      typeof claims.sub !== 'string' ||
      !UUID.test(claims.sub) ||
      !Number.isInteger(claims.sv) ||
      typeof claims.jti !== 'string' ||
      !UUID.test(claims.jti) ||
      typeof claims.iat !== 'number' ||
      typeof claims.exp !== 'number' ||
      claims.iat > now + CLOCK_SKEW_SECONDS ||
      claims.exp - claims.iat > this.tokens.expiresIn
    ) {
      throw new AppError('invalid_token');
    }
    const user = await this.users.find(claims.sub);
    // A password change or removal bumps the version: every token issued before is refused.
    // Signing out revokes the one token, on every instance (the `user` topic is invalidated).
    if (user === null || user.tokenVersion !== claims.sv || user.revokedTokens.has(claims.jti)) throw new AppError('invalid_token');
    // Its session's lastSeenAt, written in the next minute's batch (no write here).
    this.sessions.seen(claims.jti);
    return user.principal;
  }
}

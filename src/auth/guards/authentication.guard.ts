import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { TokenExpiredError } from 'jsonwebtoken';
import { AppError } from '../../common/errors/app-error';
import type { Request } from '../../common/request';
import { requirementOf } from '../auth.decorators';
import { CHALLENGE } from '../challenges';
import type { ApiKeyPrincipal, Principal, UserPrincipal } from '../principal';
import { ApiKeyStrategy } from '../strategies/api-key.strategy';
import { authenticateWith } from '../strategies/authenticate-with';
import { JwtStrategy } from '../strategies/jwt.strategy';

/**
 * Runs the route's declared method — passport-headerapikey or passport-jwt, through
 * `authenticateWith` — and records the outcome on the request. It never throws: the rate limiter
 * must count (and add headers to) failed attempts too, so the AuthorizationGuard rethrows
 * `authError` after it. An error that is not an AppError (the database failed) is kept as it is,
 * so it answers 500 or 503, never 401.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly apiKeyStrategy: ApiKeyStrategy,
    private readonly jwtStrategy: JwtStrategy,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const requirement = requirementOf(context);
    if (requirement.method === 'none') return true;
    try {
      req.user = requirement.method === 'apiKey' ? await this.apiKey(req) : await this.bearer(req);
    } catch (err) {
      req.user = null;
      req.authError = err instanceof Error ? err : new Error(String(err));
    }
    return true;
  }

  private async apiKey(req: Request): Promise<Principal> {
    if (req.headers['x-api-key'] === undefined) {
      throw new AppError('missing_credentials', 'This endpoint needs an X-Api-Key header.').withChallenge(CHALLENGE.apiKey);
    }
    try {
      const { user } = await authenticateWith<ApiKeyPrincipal>(this.apiKeyStrategy, req);
      if (user) return user;
    } catch (err) {
      // Not a verdict on the key (e.g. the database failed): never a 401.
      if (!(err instanceof AppError)) throw err;
      throw err.status === 401 ? err.withChallenge(CHALLENGE.apiKey) : err;
    }
    throw new AppError('invalid_api_key').withChallenge(CHALLENGE.apiKey);
  }

  /** Maps jsonwebtoken's failures onto RFC 6750 answers. */
  private async bearer(req: Request): Promise<Principal> {
    if (req.headers.authorization === undefined) {
      throw new AppError('missing_credentials', 'This endpoint needs an Authorization: Bearer <token> header.').withChallenge(CHALLENGE.bearer);
    }
    let verdict;
    try {
      verdict = await authenticateWith<UserPrincipal>(this.jwtStrategy, req);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      throw err.status === 401 ? err.withChallenge(CHALLENGE.invalidToken) : err;
    }
    if (verdict.user) return verdict.user;
    if (verdict.info instanceof TokenExpiredError) throw new AppError('token_expired').withChallenge(CHALLENGE.expiredToken);
    throw new AppError('invalid_token').withChallenge(CHALLENGE.invalidToken);
  }
}

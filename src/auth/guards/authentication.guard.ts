import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError } from '../../common/errors/app-error';
import type { Request } from '../../common/request';
import { requirementOf } from '../auth.decorators';
import { CHALLENGE } from '../challenges';
import { ApiKeyAuthGuard, JwtAuthGuard } from './passport.guards';

/**
 * Runs the route's declared method (passport) and records the outcome on the request. It never
 * throws: the rate limiter must count (and add headers to) failed attempts too, so the
 * AuthorizationGuard rethrows `authError` after it. An error that is not an AppError (the
 * database failed) is rethrown as it is, so it answers 500, never 401.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeyGuard: ApiKeyAuthGuard,
    private readonly jwtGuard: JwtAuthGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const requirement = requirementOf(this.reflector, context);
    if (requirement.method === 'none') return true;
    try {
      if (requirement.method === 'apiKey') {
        if (req.headers['x-api-key'] === undefined) {
          throw new AppError('missing_credentials', 'This endpoint needs an X-Api-Key header.').withChallenge(CHALLENGE.apiKey);
        }
        await this.apiKeyGuard.canActivate(context);
      } else {
        if (req.headers.authorization === undefined) {
          throw new AppError('missing_credentials', 'This endpoint needs an Authorization: Bearer <token> header.').withChallenge(CHALLENGE.bearer);
        }
        await this.jwtGuard.canActivate(context);
      }
    } catch (err) {
      req.user = null;
      // An AppError is the verdict (401); anything else is a failure of ours, answered as such.
      req.authError = err instanceof Error ? err : new Error(String(err));
    }
    return true;
  }
}

import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error';
import type { Request } from '../../common/request';
import { keyAllowsOrigin } from '../../cors/origins';
import { requirementOf } from '../auth.decorators';

/** Last of the three app-wide guards: the authentication verdict, then role (JWT) or scope (API key). */
@Injectable()
export class AuthorizationGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.getArgByIndex<Request>(0); // as in AuthenticationGuard
    if (req.authError) throw req.authError;
    const requirement = requirementOf(context);
    const principal = req.user;
    switch (requirement.method) {
      case 'none':
        return true;
      case 'apiKey':
        if (principal?.kind !== 'apiKey' || !principal.scopes.includes(requirement.scope)) {
          throw new AppError('insufficient_permissions', `This API key lacks the "${requirement.scope}" scope.`);
        }
        // docs/API.md, "Browser clients (CORS)": a browser call from an origin the key does not list.
        if (!keyAllowsOrigin(principal.allowedOrigins, req.headers.origin)) {
          throw new AppError('insufficient_permissions', 'This API key does not accept requests from this origin.');
        }
        return true;
      case 'jwt':
        if (principal?.kind === 'user' && requirement.roles.includes(principal.role)) return true;
        throw new AppError('insufficient_permissions', 'Your role does not allow this operation.');
    }
  }
}

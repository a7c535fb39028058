import { AppError } from '../../common/errors/app-error';
import type { Request } from '../../common/request';
import { keyAllowsOrigin } from '../../cors/origins';
import type { AuthRequirement } from '../auth.decorators';
import type { AuthVerdict } from './authentication';

/** The authentication verdict, then role (JWT) or scope and origin (API key): throws the refusal. */
export function authorise(req: Request, requirement: AuthRequirement, verdict: AuthVerdict): true {
  if (verdict instanceof Error) throw verdict;
  switch (requirement.method) {
    case 'none':
      return true;
    case 'apiKey':
      if (verdict?.kind !== 'apiKey' || !verdict.scopes.includes(requirement.scope)) {
        throw new AppError('insufficient_permissions', `This API key lacks the "${requirement.scope}" scope.`);
      }
      // docs/API.md, "Browser clients (CORS)": a browser call from an origin the key does not list.
      if (!keyAllowsOrigin(verdict.allowedOrigins, req.headers.origin)) {
        throw new AppError('insufficient_permissions', 'This API key does not accept requests from this origin.');
      }
      return true;
    case 'jwt':
      if (verdict?.kind === 'user' && requirement.roles.includes(verdict.role)) return true;
      throw new AppError('insufficient_permissions', 'Your role does not allow this operation.');
  }
}

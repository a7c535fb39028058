import { AppError } from '../common/errors/app-error';
import type { AuthRequirement } from '../common/auth.decorators';
import type { AuthVerdict } from '../auth/authenticator';

/**
 * The authentication verdict, then role (JWT) or scope (API key): throws the refusal. (A key's
 * allowed origins are checked before the request is counted, in AccessGuard.)
 */
export function authorise(requirement: AuthRequirement, verdict: AuthVerdict): true {
  if (verdict instanceof Error) throw verdict;
  switch (requirement.method) {
    case 'none':
      return true;
    case 'apiKey':
      if (verdict?.kind !== 'apiKey' || !verdict.scopes.includes(requirement.scope)) {
        throw new AppError('insufficient_permissions', `This API key lacks the "${requirement.scope}" scope.`);
      }
      return true;
    case 'jwt':
      if (verdict?.kind === 'user' && requirement.roles.includes(verdict.role)) {
        if (verdict.mustEnrolMfa === true && requirement.whileEnrolling !== true) throw new AppError('mfa_required');
        return true;
      }
      throw new AppError('insufficient_permissions', 'Your role does not allow this operation.');
  }
}

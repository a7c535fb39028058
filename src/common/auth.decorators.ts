import { applyDecorators, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiExtension, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { ErrorResponseDto } from './dto/error-response.dto';
import { perRoute } from './per-route';
import { ApiKeyScope, Role, ROLES } from './principal';

export type AuthRequirement =
  | { readonly method: 'none'; readonly sessionCookie?: true }
  | { readonly method: 'apiKey'; readonly scope: ApiKeyScope }
  | { readonly method: 'jwt'; readonly roles: readonly Role[]; readonly whileEnrolling?: true };

export const AUTH_REQUIREMENT = 'gatehouse:auth';
export const API_KEY_SECURITY = 'apiKey';
export const JWT_SECURITY = 'jwt';

/** The requirement for the AccessGuard, and as `x-gatehouse-auth` in the OpenAPI document for clients and tests. */
const declareAuth = (requirement: AuthRequirement) =>
  applyDecorators(SetMetadata(AUTH_REQUIREMENT, requirement), ApiExtension('x-gatehouse-auth', requirement));

/** A route nobody declared: authenticated like a JWT route, then refused to every role. */
export const UNDECLARED: AuthRequirement = { method: 'jwt', roles: [] };

const errors = (...responses: Array<[number, string]>) =>
  responses.map(([status, description]) => ApiResponse({ status, description, type: ErrorResponseDto }));

const COMMON_ERRORS = errors([429, 'rate_limit_exceeded — over the limit; see Retry-After'], [500, 'internal_error']);

/** Anyone may call this route; limits are per client IP. */
export const Public = () => applyDecorators(declareAuth({ method: 'none' }), ...COMMON_ERRORS);

/**
 * Anyone may call this route, which takes the dashboard's session cookie: with a live session it is
 * counted per user, as the user's token requests are; without one, per client IP.
 */
export const PublicWithSessionCookie = () => applyDecorators(declareAuth({ method: 'none', sessionCookie: true }), ...COMMON_ERRORS);

/** The route takes an `X-Api-Key` whose key holds `scope`. */
export const ApiKeyAuth = (scope: ApiKeyScope) =>
  applyDecorators(
    declareAuth({ method: 'apiKey', scope }),
    ApiSecurity(API_KEY_SECURITY),
    ...errors(
      [401, 'missing_credentials (no X-Api-Key) or invalid_api_key (unknown, revoked or expired key)'],
      [403, `insufficient_permissions — the key lacks the "${scope}" scope`],
    ),
    ...COMMON_ERRORS,
  );

/** The route takes `Authorization: Bearer <JWT>` from a user with one of `roles` (default: every role). */
export const JwtAuth = (...roles: Role[]) =>
  applyDecorators(
    declareAuth({ method: 'jwt', roles: roles.length > 0 ? roles : ROLES }),
    ApiBearerAuth(JWT_SECURITY),
    ...errors(
      [401, 'missing_credentials, invalid_token or token_expired'],
      [
        403,
        `insufficient_permissions — allowed roles: ${(roles.length > 0 ? roles : ROLES).join(', ')}; mfa_required — the account requires a second factor and the caller has none yet`,
      ],
    ),
    ...COMMON_ERRORS,
  );

/**
 * Any JWT, also of a member who must enrol a second factor first (the account requires one, they
 * have none): what enrolling, signing out and seeing oneself take. Every other JWT route answers
 * them 403 `mfa_required`.
 */
export const JwtAuthWhileEnrolling = () =>
  applyDecorators(
    declareAuth({ method: 'jwt', roles: ROLES, whileEnrolling: true }),
    ApiBearerAuth(JWT_SECURITY),
    ...errors([401, 'missing_credentials, invalid_token or token_expired']),
    ...COMMON_ERRORS,
  );

const reflector = new Reflector();

/** The route's requirement: the handler's declaration, else its controller's, else UNDECLARED. */
export const requirementOf = perRoute(
  (handler, controller): AuthRequirement =>
    reflector.getAllAndOverride<AuthRequirement | undefined>(AUTH_REQUIREMENT, [handler as () => void, controller as () => void]) ??
    UNDECLARED,
);

const NOT_RATE_LIMITED = 'gatehouse:not-rate-limited';

/**
 * The route is not counted and gets no rate-limit headers: probes, static files and dashboard
 * pages, which carry no credential and cost no database work (docs/API.md, "Rate limits").
 */
export const SkipRateLimit = () => SetMetadata(NOT_RATE_LIMITED, true);

/** Whether the route (handler or controller) skips the rate limiter. */
export const skipsRateLimit = perRoute(
  (handler, controller): boolean =>
    reflector.getAllAndOverride<boolean | undefined>(NOT_RATE_LIMITED, [handler as () => void, controller as () => void]) === true,
);

const ORIGIN_REFUSAL_FAILS_CHALLENGE = 'gatehouse:origin-refusal-fails-challenge';

/**
 * A request of this route refused for its page's origin (the key's `allowedOrigins`) counts as a
 * failed challenge in the widget's figures (docs/API.md, "Analytics").
 */
export const OriginRefusalFailsChallenge = () => SetMetadata(ORIGIN_REFUSAL_FAILS_CHALLENGE, true);

/** Whether the route (handler or controller) counts an origin refusal as a failed challenge. */
export const originRefusalFailsChallenge = perRoute(
  (handler, controller): boolean =>
    reflector.getAllAndOverride<boolean | undefined>(ORIGIN_REFUSAL_FAILS_CHALLENGE, [handler as () => void, controller as () => void]) ===
    true,
);

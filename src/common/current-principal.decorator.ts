import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from './request';
import type { ApiKeyPrincipal, UserPrincipal } from './principal';

/**
 * The request of an @ApiKeyAuth route, whose guard guarantees an API-key principal. Those routes
 * (widget and server traffic) take `@Req() req: ApiKeyRequest` rather than `@CurrentPrincipal()`:
 * Nest runs a custom parameter decorator through the global ValidationPipe's promise chain, which
 * cost ~5% of an API-key request (docs/PERFORMANCE.md, "API-key checks"); `@Req()` is handed over as it is.
 */
export type ApiKeyRequest = Request & { readonly user: ApiKeyPrincipal };

/** The authenticated caller; only on routes whose guard guarantees one. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext) => ctx.switchToHttp().getRequest<Request>().user);

/**
 * The request a change came with, as the audit log records it: its id and the client IP (as
 * TRUST_PROXY resolves it); and its User-Agent, which a session started by it keeps ('' without one).
 */
export interface RequestSource {
  readonly requestId: string;
  readonly ip: string;
  readonly userAgent: string;
}

export const requestSourceOf = (req: Request): RequestSource => ({ requestId: req.id, ip: req.ip, userAgent: req.headers['user-agent'] ?? '' });

/** A dashboard user acting, with the request their changes are audited under. */
export type Actor = UserPrincipal & RequestSource;

/** The JWT caller as an Actor; only on @JwtAuth routes. */
export const CurrentActor = createParamDecorator((_: unknown, ctx: ExecutionContext): Actor => {
  const req = ctx.switchToHttp().getRequest<Request>();
  return { ...(req.user as UserPrincipal), ...requestSourceOf(req) };
});

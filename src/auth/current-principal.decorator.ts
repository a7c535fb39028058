import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from '../common/request';
import type { UserPrincipal } from './principal';

/** The authenticated caller; only on routes whose guards guarantee one. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext) => ctx.switchToHttp().getRequest<Request>().user);

/** A dashboard user acting, with the request id their changes are audited under. */
export type Actor = UserPrincipal & { readonly requestId: string };

/** The JWT caller as an Actor; only on @JwtAuth routes. */
export const CurrentActor = createParamDecorator((_: unknown, ctx: ExecutionContext): Actor => {
  const req = ctx.switchToHttp().getRequest<Request>();
  return { ...(req.user as UserPrincipal), requestId: req.id };
});

import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from '../common/request';

/** The authenticated caller; only on routes whose guards guarantee one. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext) => ctx.switchToHttp().getRequest<Request>().user);

import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { declaredRoutes } from './declared-routes';
import { AppError } from './errors/app-error';

declare module 'fastify' {
  /** Fastify route config (`req.routeOptions.config`): true on a controller route that declares no @Query(). */
  interface FastifyContextConfig {
    readonly takesNoQuery?: true;
  }
}

const QUERY_ARG = `${RouteParamtypes.QUERY}:`;

/**
 * Unknown query parameters are refused on every /api route (docs/API.md, "Conventions"). A route with a @Query()
 * DTO refuses them in the validation pipe (`forbidNonWhitelisted`); a route without one takes none,
 * and gets an onRequest hook of its own that refuses any. The hook runs before the guards, like the
 * body parser: such a request is counted per client IP by the exception filter. /health is left
 * alone: probes may add cache-busting parameters. Runs before the routes are registered.
 */
export function refuseUndeclaredQueries(app: NestFastifyApplication): void {
  for (const route of declaredRoutes(app)) {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, route.controller, route.methodName) ?? {}) as object;
    if (Object.keys(args).some((key) => key.startsWith(QUERY_ARG))) continue;
    const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, route.handler) ?? {}) as object;
    Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, takesNoQuery: true }, route.handler);
  }
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRoute', (route) => {
      if (route.config?.takesNoQuery !== true || !route.url.startsWith('/api/')) return;
      route.onRequest = [...[route.onRequest ?? []].flat(), refuseAnyQuery];
    });
}

function refuseAnyQuery(req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  // for…in: no array for the usual empty query.
  for (const _ in req.query as object) {
    const details = Object.keys(req.query as object).map((field) => ({ field, message: `property ${field} should not exist` }));
    return done(new AppError('validation_failed', undefined, details));
  }
  done();
}

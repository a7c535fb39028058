import { RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import { AUTH_REQUIREMENT, AuthRequirement, UNDECLARED } from './auth.decorators';

/** One controller method that Nest serves as a route, with what it declared (undefined: nothing). */
export interface DeclaredRoute {
  readonly controller: Type;
  readonly methodName: string;
  readonly requestMethod: string;
  readonly handler: (...args: unknown[]) => unknown;
  readonly declared: AuthRequirement | undefined;
}

declare module 'fastify' {
  /** Fastify route config (`req.routeOptions.config`): every controller route's, see publishAuthToRouteConfig. */
  interface FastifyContextConfig {
    readonly auth?: AuthRequirement;
  }
}

/** Every route handler of the given controllers, found the way Nest's router finds them. */
export function routesOf(controllers: readonly Type[]): DeclaredRoute[] {
  const reflector = new Reflector();
  const scanner = new MetadataScanner();
  return controllers.flatMap((controller) => {
    const prototype = controller.prototype as Record<string, unknown>;
    return scanner.getAllMethodNames(prototype).flatMap((methodName) => {
      const handler = prototype[methodName] as (...args: unknown[]) => unknown;
      if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) return [];
      const requestMethod = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      const declared = reflector.getAllAndOverride<AuthRequirement | undefined>(AUTH_REQUIREMENT, [handler, controller]);
      return [{ controller, methodName, requestMethod, handler, declared }];
    });
  });
}

/** Every controller route of the application, including those hidden from Swagger. */
export function declaredRoutes(app: NestFastifyApplication): DeclaredRoute[] {
  const controllers = new DiscoveryService(app.get(ModulesContainer))
    .getControllers()
    .map((wrapper) => wrapper.metatype as Type | null)
    .filter((c): c is Type => typeof c === 'function');
  return routesOf([...new Set(controllers)]);
}

/**
 * Copies each route's effective requirement (handler, else controller, else UNDECLARED: the same
 * answer the AccessGuard reaches) into its Fastify route config, so hooks that run before the
 * guard — CORS — can read it from `req.routeOptions.config.auth`. Runs before the routes are
 * registered.
 */
export function publishAuthToRouteConfig(app: NestFastifyApplication): void {
  for (const route of declaredRoutes(app)) {
    const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, route.handler) ?? {}) as object;
    Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, auth: route.declared ?? UNDECLARED }, route.handler);
  }
}

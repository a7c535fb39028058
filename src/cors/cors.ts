import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthRequirement } from '../common/auth.decorators';
import { normalizeOrigin } from './origins';

/**
 * What page scripts may read (docs/API.md, "Browser clients (CORS)"): the rate-limit headers,
 * Retry-After, the request id, and the name a download comes with (the audit log's CSV).
 */
export const EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'X-Request-Id',
  'Content-Disposition',
].join(', ');

/** Browsers may cache a preflight this long (Chromium caps it at 7200 s). */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

const ALLOWED_HEADERS: Record<AuthRequirement['method'], string> = {
  apiKey: 'X-Api-Key, Content-Type, X-Request-Id',
  jwt: 'Authorization, Content-Type, X-Request-Id',
  none: 'Content-Type, X-Request-Id',
};

const API_PATH = /^\/api\//;

/**
 * CORS for /api routes, decided per route by its auth declaration (docs/DECISIONS.md, "Browser
 * clients (CORS)"). API-key routes admit every origin here — a preflight carries no key, and the key's own
 * `allowedOrigins` is enforced on the real request by authorisation (AccessGuard, 403). JWT and public
 * routes admit only `dashboardOrigins`. Preflights are answered in `onRequest`, before any guard:
 * never counted, never in usage analytics.
 *
 * Fastify routes by method, so a preflight (OPTIONS) would match nothing: each /api path gets a
 * hidden OPTIONS route that only names the path. A non-preflight OPTIONS falls through to 404.
 */
export function installCors(app: NestFastifyApplication, dashboardOrigins: readonly string[]): void {
  const fastify = app.getHttpAdapter().getInstance();
  const dashboard = new Set(dashboardOrigins);
  /** Route template → method → requirement, filled as Nest registers its routes. */
  const routes = new Map<string, Map<string, AuthRequirement>>();

  const admits = (auth: AuthRequirement, origin: string): boolean => {
    if (auth.method === 'apiKey') return true;
    const normalized = normalizeOrigin(origin);
    return normalized !== undefined && dashboard.has(normalized);
  };

  fastify.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (auth === undefined || !API_PATH.test(route.url)) return;
    let methods = routes.get(route.url);
    if (methods === undefined) {
      methods = new Map();
      routes.set(route.url, methods);
      fastify.route({
        method: 'OPTIONS',
        url: route.url,
        handler: (_req: FastifyRequest, reply: FastifyReply) => reply.callNotFound(),
      });
    }
    for (const method of [route.method].flat()) methods.set(method, auth);
  });

  fastify.addHook('onRequest', (req, reply, done) => {
    if (!API_PATH.test(req.url)) return done();
    // The answer depends on Origin on every /api route (CORS grant, and the key's origin check).
    reply.header('vary', 'Origin'); // lower case, as Fastify sends it: see writeRateLimitHeaders
    const origin = req.headers.origin;
    if (origin === undefined) return done();
    const requested = req.headers['access-control-request-method'];
    if (req.method === 'OPTIONS' && typeof requested === 'string') {
      const methods = routes.get(req.routeOptions.url ?? '');
      const auth = methods?.get(requested.toUpperCase());
      // An unknown path or method is not preflighted: it answers 404 not_found like any unknown route.
      if (methods === undefined || auth === undefined) return done();
      reply.header('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
      if (admits(auth, origin)) {
        const allowed = [...methods].filter(([, a]) => admits(a, origin)).map(([m]) => m);
        reply
          .header('Access-Control-Allow-Origin', origin)
          .header('Access-Control-Allow-Methods', allowed.join(', '))
          .header('Access-Control-Allow-Headers', ALLOWED_HEADERS[auth.method])
          .header('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS);
      }
      // A refused origin gets the same 204 without a grant: the browser stops there.
      reply.code(204).send();
      return;
    }
    const auth = req.routeOptions.config?.auth;
    if (auth !== undefined && admits(auth, origin)) {
      reply.header('Access-Control-Allow-Origin', origin).header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    done();
  });
}

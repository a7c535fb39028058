import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module';
import { AppError } from './common/errors/app-error';
import { endpointOf } from './common/request';
import { createValidationPipe } from './common/validation';
import { UsageRecorder } from './usage/usage.recorder';
import { Logger } from 'nestjs-pino';
import type { Logger as PinoLogger } from 'pino';
import { PINO } from './logging/logging.module';
import { QuietStartupLogger } from './logging/quiet-startup.logger';
import { AccessGuard } from './http/access.guard';
import { AppExceptionFilter } from './http/app-exception.filter';
import { Lifecycle } from './health/lifecycle.service';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { clientErrorHandler, frameworkErrors } from './common/errors/framework-errors';
import { publishAuthToRouteConfig } from './common/declared-routes';
import { installCors } from './cors/cors';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { refuseUndeclaredQueries } from './common/undeclared-query';
import { Metrics } from './metrics/metrics';
import { installMetricsRoute, METRICS_ENDPOINT } from './metrics/metrics-server';
import { DASHBOARD_ASSET_ROUTE } from './dashboard/dashboard-pages';
import { nameServerSpans } from './tracing/tracing';

export const API_PREFIX = 'api/v1';
export const BODY_LIMIT_BYTES = 64 * 1024;
export const HEADER_LIMIT_BYTES = 16 * 1024;

/** RFC 9112, section 3.2: an HTTP/1.1 request without Host is answered 400. */
const missingHost = () => new AppError('validation_failed', 'The request has no Host header.', [{ field: 'host', message: 'is required' }]);

/** A client-sent X-Request-Id is kept when it is short and plain; otherwise we make one. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

function genReqId(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/**
 * How long a request may take to arrive: its headers, and the whole of it (body included). Fastify
 * turns Node's whole-request limit off, so a client sending a byte now and then held a connection
 * for good. Node checks the limits every `checkEveryMs`; a late request is answered 408 (see
 * clientErrorHandler).
 */
export const REQUEST_TIMEOUTS = { headersMs: 10_000, wholeMs: 30_000, checkEveryMs: 2_000 } as const;

export function createFastifyAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: REQUEST_TIMEOUTS.wholeMs,
    // Node would answer an HTTP/1.1 request without Host with a bare 400 of its own; the onRequest
    // hook below answers it in the documented envelope instead.
    http: {
      maxHeaderSize: HEADER_LIMIT_BYTES,
      requireHostHeader: false,
      headersTimeout: REQUEST_TIMEOUTS.headersMs,
      connectionsCheckingInterval: REQUEST_TIMEOUTS.checkEveryMs,
    },
    genReqId,
    clientErrorHandler,
    frameworkErrors,
    // The client IP (anonymous limits) comes from X-Forwarded-For only behind a configured proxy.
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
    // Fastify's own 503 for requests that arrive while the server closes has none of our headers
    // and not our body: Lifecycle.refusal answers them instead (configureApp).
    return503OnClosing: false,
  });
}

/**
 * Everything main.ts and the e2e tests share: the app they run is the same app. It registers, in
 * the order a request meets them (README, "Where things are"):
 *
 * 1. Fastify (createFastifyAdapter): body and header limits, timeouts, the request id; what it
 *    refuses before routing is answered in our envelope (framework-errors.ts).
 * 2. onRequest: the X-Request-Id header, a missing Host, a refusal while the server drains.
 * 3. Per route, at registration: the auth requirement published for CORS and the undeclared-query
 *    check (onRoute hooks of declared-routes.ts, undeclared-query.ts, cors.ts).
 * 4. AccessGuard: authenticate → count (RateLimiter) → authorise.
 * 5. The validation pipe: the route's DTOs.
 * 6. The controller.
 * 7. AppExceptionFilter: every refusal and failure in the documented envelope.
 * 8. onSend / onResponse: Connection: close while draining, the request log line, usage recording,
 *    the HTTP metrics (when metrics are on).
 */
export function configureApp(app: NestFastifyApplication): NestFastifyApplication {
  app.setGlobalPrefix(API_PREFIX, {
    exclude: ['health', 'health/live', 'health/ready', 'widget/v1/gatehouse.js', DASHBOARD_ASSET_ROUTE],
  });
  // The signals that stop a service: Nest's default list also stops on SIGUSR2, SIGILL, SIGTRAP and
  // others, which tools send for other reasons (a heap snapshot on SIGUSR2, nodemon's restart).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT', 'SIGHUP']);
  const config = app.get<AppConfig>(APP_CONFIG);
  const fastify = app.getHttpAdapter().getInstance();
  // An Expect other than 100-continue would get Node's bare 417; RFC 9110 lets a server ignore it.
  fastify.server.on('checkExpectation', (req, res) => fastify.server.emit('request', req, res));
  fastify.removeContentTypeParser('text/plain'); // bodies are JSON; anything else answers 415
  fastify.decorateRequest('user', null);
  fastify.decorateRequest('attributedTo', null);
  fastify.decorateRequest('rateLimit', null);
  fastify.decorateRequest('endpoint', null);

  const lifecycle = app.get(Lifecycle);
  fastify.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id); // lower case: see writeRateLimitHeaders
    if (req.raw.headers.host === undefined && req.raw.httpVersion !== '1.0') return done(missingHost());
    done(lifecycle.refusal());
  });
  nameServerSpans(fastify); // tracing on only

  installMetricsRoute(app); // before the per-route hooks: not an API route
  publishAuthToRouteConfig(app);
  refuseUndeclaredQueries(app);
  installCors(app, config.dashboardOrigins);

  app.useGlobalGuards(app.get(AccessGuard));
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(app.get(AppExceptionFilter));

  // Once draining, every answer closes its connection: keep-alive sockets that were busy when the
  // stop began would otherwise hold server.close() open for the whole keep-alive timeout.
  fastify.addHook('onSend', (_req, reply, payload, done) => {
    if (lifecycle.isDraining) reply.header('Connection', 'close');
    done(null, payload);
  });
  app.useLogger(new QuietStartupLogger(app.get(Logger)));
  // NestFactory.create buffers Nest's log lines (bufferLogs) but, unlike createApplicationContext,
  // never flushes them when a logger is set: without this, every line of Nest's Logger — the
  // exception filter's 5xx and 503 lines included — stayed in memory for good.
  app.flushLogs();
  // After the answer, one hook does what is on: the request log line, usage recording, the HTTP metrics.
  const log = app.get<PinoLogger>(PINO);
  // A line per answer cost about a quarter of an API-key request (docs/PERFORMANCE.md, "Request log lines only for errors"), so by default only
  // refusals and failures get one; 429s are left to analytics, or a flood would pay per line.
  const logAll = config.logRequests === 'all';
  const logErrors = config.logRequests !== 'none';
  const usage = config.usageRecording ? app.get(UsageRecorder) : undefined;
  // One addition and one histogram observation per answer, on children bound once per route (docs/PERFORMANCE.md, "Metrics").
  const metrics = app.get(Metrics).enabled ? app.get(Metrics) : undefined;
  if (logErrors || usage !== undefined || metrics !== undefined) {
    fastify.addHook('onResponse', (req, reply, done) => {
      const status = reply.statusCode;
      if (logAll || (logErrors && status >= 400 && status !== 429)) {
        log.info({ reqId: req.id, route: endpointOf(req), status, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
      }
      if (usage !== undefined) {
        const principal = req.user ?? req.attributedTo;
        if (principal && req.url.startsWith('/api/')) usage.record({ principal, endpoint: endpointOf(req), status, at: Date.now() });
      }
      if (metrics !== undefined) {
        const endpoint = endpointOf(req);
        if (endpoint !== METRICS_ENDPOINT) metrics.request(endpoint, status, reply.elapsedTime / 1000);
      }
      done();
    });
  }
  // Gatehouse's name on the page and its tab, not Swagger's stock top bar, logo and icon.
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Gatehouse API',
    customfavIcon: 'data:,',
    customCss: '.swagger-ui .topbar { display: none }',
    swaggerOptions: { persistAuthorization: true },
  });
  return app;
}

export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), createFastifyAdapter(config), {
    abortOnError: false,
    bufferLogs: true,
    // Fastify's own JSON parser only (with bodyLimit and prototype-poisoning checks): no form bodies.
    bodyParser: false,
  });
  return configureApp(app);
}

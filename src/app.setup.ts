import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module';
import { API_KEY_SECURITY, JWT_SECURITY } from './auth/auth.decorators';
import { endpointOf } from './common/request';
import { createValidationPipe } from './common/validation';
import { UsageRecorder } from './usage/usage.recorder';
import { Logger } from 'nestjs-pino';
import type { Logger as PinoLogger } from 'pino';
import { PINO } from './logging/logging.module';
import { Lifecycle } from './health/lifecycle.service';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { DEFAULT_MESSAGES } from './common/errors/error-codes';
import { publishAuthToRouteConfig } from './auth/declared-routes';
import { installCors } from './cors/cors';

export const API_PREFIX = 'api/v1';
export const BODY_LIMIT_BYTES = 64 * 1024;
export const HEADER_LIMIT_BYTES = 16 * 1024;

/** A client-sent X-Request-Id is kept when it is short and plain; otherwise we make one. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

function genReqId(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/** Answers the HTTP parser's refusals (oversized headers, garbage) with the documented body. */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const code = tooLarge ? 'request_header_fields_too_large' : 'validation_failed';
  const requestId = randomUUID();
  const body = JSON.stringify({
    statusCode: status,
    error: code,
    message: tooLarge ? DEFAULT_MESSAGES.request_header_fields_too_large : 'The request is not valid HTTP.',
    requestId,
    ...(tooLarge ? {} : { details: [] }),
  });
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function createFastifyAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    http: { maxHeaderSize: HEADER_LIMIT_BYTES },
    genReqId,
    clientErrorHandler,
    // The client IP (anonymous limits) comes from X-Forwarded-For only behind a configured proxy.
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true },
  });
}

/** Everything main.ts and the e2e tests share: the app they run is the same app. */
export async function configureApp(app: NestFastifyApplication): Promise<NestFastifyApplication> {
  app.setGlobalPrefix(API_PREFIX, { exclude: ['health', 'health/live', 'health/ready'] });
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  const config = app.get<AppConfig>(APP_CONFIG);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.removeContentTypeParser('text/plain'); // bodies are JSON; anything else answers 415
  fastify.decorateRequest('user', null);
  fastify.decorateRequest('attributedTo', null);
  fastify.decorateRequest('rateLimit', null);
  fastify.decorateRequest('endpoint', null);
  fastify.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id); // lower case: see writeRateLimitHeaders
    done();
  });
  publishAuthToRouteConfig(app);
  installCors(app, config.dashboardOrigins);
  // Once draining, every answer closes its connection: keep-alive sockets that were busy when the
  // stop began would otherwise hold server.close() open for the whole keep-alive timeout.
  const lifecycle = app.get(Lifecycle);
  fastify.addHook('onSend', (_req, reply, payload, done) => {
    if (lifecycle.isDraining) reply.header('Connection', 'close');
    done(null, payload);
  });
  app.useLogger(app.get(Logger));
  const log = app.get<PinoLogger>(PINO);
  if (config.logRequests !== 'none') {
    // A line per answer cost about a quarter of an API-key request (docs/PERFORMANCE.md), so by default only
    // refusals and failures get one; 429s are left to analytics, or a flood would pay per line.
    const all = config.logRequests === 'all';
    fastify.addHook('onResponse', (req, reply, done) => {
      const status = reply.statusCode;
      if (all || (status >= 400 && status !== 429)) {
        log.info({ reqId: req.id, route: endpointOf(req), status, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
      }
      done();
    });
  }
  if (config.usageRecording) {
    const usage = app.get(UsageRecorder);
    fastify.addHook('onResponse', (req, reply, done) => {
      const principal = req.user ?? req.attributedTo;
      if (principal && req.url.startsWith('/api/')) usage.record({ principal, endpoint: endpointOf(req), status: reply.statusCode, at: Date.now() });
      done();
    });
  }
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
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

const RATE_LIMIT_HEADERS_DOC = {
  'X-Request-Id': { description: 'Request id (a sane client-sent one is kept).', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window after this one.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'Whole seconds until the window resets.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Policy': { description: 'IETF draft-ietf-httpapi-ratelimit-headers-09: "default";q=<limit>;w=60', schema: { type: 'string' } },
  RateLimit: { description: 'IETF draft-ietf-httpapi-ratelimit-headers-09: "default";r=<remaining>;t=<reset>', schema: { type: 'string' } },
};

export function buildOpenApiDocument(app: NestFastifyApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Gatehouse')
    .setDescription(
      'Access control for the bot-protection API. Dashboard routes take `Authorization: Bearer <JWT>` from ' +
        '`POST /api/v1/auth/login`; widget and server routes take `X-Api-Key`. Every `/api/v1` response carries ' +
        'the rate-limit headers; errors share one body: `{statusCode, error, message, requestId, details?}`.',
    )
    .setVersion('1')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key from the dashboard.' }, API_KEY_SECURITY)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The token from POST /api/v1/auth/login.' }, JWT_SECURITY)
    .build();
  const document = SwaggerModule.createDocument(app, config);
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item)) {
      if (typeof op !== 'object' || op === null || !('responses' in op)) continue;
      for (const [status, response] of Object.entries(op.responses as Record<string, { headers?: object }>)) {
        response.headers = {
          ...RATE_LIMIT_HEADERS_DOC,
          ...(status === '429' ? { 'Retry-After': { description: 'Whole seconds to wait, >= 1.', schema: { type: 'integer', minimum: 1 } } } : {}),
          ...(status === '401' ? { 'WWW-Authenticate': { description: 'RFC 6750 challenge.', schema: { type: 'string' } } } : {}),
          ...response.headers,
        };
      }
    }
  }
  return document;
}

import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppError } from '../common/errors/app-error';
import { ERROR_CONTENT_TYPE, errorBody } from '../common/errors/error-body';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Metrics } from './metrics';

/** The scrape's own endpoint (endpointOf), left out of the HTTP metrics. */
export const METRICS_ENDPOINT = 'GET /metrics';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * GET /metrics on the main port, for `Authorization: Bearer METRICS_TOKEN` only (compared in constant
 * time). A plain Fastify route: outside /api/v1, the OpenAPI document, the rate limits and analytics.
 * Without METRICS_TOKEN there is no such route (404).
 */
export function installMetricsRoute(app: NestFastifyApplication): void {
  const config = app.get<AppConfig>(APP_CONFIG);
  const token = config.metrics.token;
  if (token === undefined) return;
  const metrics = app.get(Metrics);
  const expected = digest(`Bearer ${token}`);
  app
    .getHttpAdapter()
    .getInstance()
    .get('/metrics', async (req, reply) => {
      const sent = req.headers.authorization;
      if (typeof sent !== 'string' || !timingSafeEqual(digest(sent), expected)) {
        const error =
          sent === undefined
            ? new AppError('missing_credentials', 'GET /metrics needs Authorization: Bearer METRICS_TOKEN.')
            : new AppError('invalid_token', 'That is not the METRICS_TOKEN.');
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer realm="metrics"')
          .header('content-type', ERROR_CONTENT_TYPE)
          .send(errorBody(error, req.id));
      }
      return reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics());
    });
}

/** With METRICS_PORT: a listener of its own serving GET /metrics without auth (for a private network). */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MetricsServer.name);
  private server?: Server;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metrics.port;
    if (port === undefined) return;
    const registry = this.metrics.registry;
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: this port serves GET /metrics only\n');
        return;
      }
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err.message}\n`),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.config.listenAddress, () => resolve());
    });
    this.server = server;
    this.logger.log(`Metrics on port ${port} at /metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

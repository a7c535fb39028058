import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, RequestOptions } from 'node:http';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import { endpointOf } from '../common/request';

type OtelApi = typeof import('@opentelemetry/api');
type SdkNode = typeof import('@opentelemetry/sdk-node');
type HttpInstrumentationModule = typeof import('@opentelemetry/instrumentation-http');
type PgInstrumentationModule = typeof import('@opentelemetry/instrumentation-pg');
type IoredisInstrumentationModule = typeof import('@opentelemetry/instrumentation-ioredis');
type PrismaInstrumentationModule = typeof import('@prisma/instrumentation');

/* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on (docs/DECISIONS.md, "Tracing") */
const load = {
  api: () => require('@opentelemetry/api') as OtelApi,
  sdk: () => require('@opentelemetry/sdk-node') as SdkNode,
  http: () => require('@opentelemetry/instrumentation-http') as HttpInstrumentationModule,
  pg: () => require('@opentelemetry/instrumentation-pg') as PgInstrumentationModule,
  ioredis: () => require('@opentelemetry/instrumentation-ioredis') as IoredisInstrumentationModule,
  prisma: () => require('@prisma/instrumentation') as PrismaInstrumentationModule,
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** Probes and scrapes: a span each would bury the requests worth reading. */
const UNTRACED = /^\/(health(\/(live|ready))?|metrics)\/?(\?|$)/;

function withoutQuery({ protocol, hostname, host, port, path }: RequestOptions): string {
  const defaultPort = protocol === 'https:' ? 443 : 80;
  const where = port === undefined || port === null || Number(port) === defaultPort ? `${hostname ?? host}` : `${hostname ?? host}:${port}`;
  return `${protocol ?? 'http:'}//${where}${(path ?? '/').split('?')[0]}`;
}

let running: { sdk: NodeSDK; api: OtelApi } | undefined;

/** Whether tracing runs in this process (startTracing found `OTEL_EXPORTER_OTLP_ENDPOINT`). */
export const tracingOn = (): boolean => running !== undefined;

/**
 * OpenTelemetry's Node SDK, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: spans for incoming and
 * outgoing HTTP (webhook deliveries), Prisma's operations, the SQL sent through `pg` and the
 * Redis commands, exported over OTLP as the standard OTEL_* variables say (protocol, headers,
 * sampler, batch delays). Unset, nothing of OpenTelemetry is loaded. It must run before the modules
 * it instruments are loaded: main.ts loads ./start first.
 *
 * What spans hold (docs/DECISIONS.md, "Tracing"): no header (the HTTP instrumentation records none
 * unless told to), no query of an outgoing request's URL, SQL text with its `$n` placeholders and never the values, a Redis command's
 * name only (keys carry e-mail addresses and client IPs).
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): void {
  if (running !== undefined || !env.OTEL_EXPORTER_OTLP_ENDPOINT) return;
  const api = load.api();
  const { NodeSDK, resources } = load.sdk();
  const { HttpInstrumentation } = load.http();
  const { PgInstrumentation } = load.pg();
  const { IORedisInstrumentation } = load.ioredis();
  const { PrismaInstrumentation } = load.prisma();
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read by the SDK's detectors, win over this.
    resource: resources.defaultResource().merge(resources.resourceFromAttributes({ 'service.name': 'gatehouse' })),
    // Traces only: metrics are Prometheus's (/metrics) and logs pino's, unless the standard variables ask for more.
    ...(env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req: IncomingMessage) => UNTRACED.test(req.url ?? ''),
        // A webhook's URL without its query, which may hold the receiver's own token.
        startOutgoingSpanHook: (options: RequestOptions) => ({ 'url.full': withoutQuery(options) }),
      }),
      // Only SQL run for something traced (a request, a Prisma operation): not pg-boss's polls every second.
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      new PrismaInstrumentation(),
    ],
  });
  sdk.start();
  running = { sdk, api };
}

/**
 * Names each traced request's server span after its route (`GET /api/v1/api-keys`, with
 * `http.route`), as metrics and analytics name it: Fastify does not tell the HTTP instrumentation.
 * Nothing is added when tracing is off.
 */
export function nameServerSpans(fastify: FastifyInstance): void {
  if (running === undefined) return;
  const { api } = running;
  fastify.addHook('onRequest', (req, _reply, done) => {
    const route = req.routeOptions.url;
    const span = api.trace.getActiveSpan();
    if (span !== undefined && route !== undefined) span.setAttribute('http.route', route).updateName(endpointOf(req));
    done();
  });
}

/** Exports the spans still buffered and stops tracing (the last step of a graceful stop); nothing when off. */
export async function stopTracing(): Promise<void> {
  if (running === undefined) return;
  const { sdk } = running;
  running = undefined;
  await sdk.shutdown();
}

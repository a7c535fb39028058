import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as the OTLP/HTTP JSON encoding carries it, its attributes flattened. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly scope: string;
  readonly attributes: Record<string, unknown>;
  readonly resource: Record<string, unknown>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
type KeyValues = Array<{ key: string; value: AnyValue }> | undefined;

const valueOf = (v: AnyValue): unknown =>
  v.stringValue ??
  v.boolValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.doubleValue ??
  v.arrayValue?.values?.map(valueOf);
const flatten = (kvs: KeyValues): Record<string, unknown> => Object.fromEntries((kvs ?? []).map(({ key, value }) => [key, valueOf(value)]));

interface ExportTraceServiceRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValues };
    scopeSpans?: Array<{
      scope?: { name?: string };
      spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: KeyValues }>;
    }>;
  }>;
}

/**
 * A real OTLP/HTTP receiver on 127.0.0.1, as a collector would listen: accepts JSON exports
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) on POST /v1/traces, keeps each body as sent and the spans
 * in it; any other path is answered 404 and recorded.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every body received, as sent: for the secret scan. */
  readonly bodies: string[] = [];
  /** Requests to anything but POST /v1/traces (metrics or logs exports, say). */
  readonly others: string[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces' || !req.headers['content-type']?.startsWith('application/json')) {
          receiver.others.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
          res.writeHead(404).end();
          return;
        }
        const body = Buffer.concat(chunks).toString('utf8');
        receiver.bodies.push(body);
        receiver.add(JSON.parse(body) as ExportTraceServiceRequest);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private add(request: ExportTraceServiceRequest): void {
    for (const { resource, scopeSpans } of request.resourceSpans ?? []) {
      for (const { scope, spans } of scopeSpans ?? []) {
        for (const s of spans ?? []) {
          this.spans.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId || undefined,
            name: s.name,
            kind: s.kind,
            scope: scope?.name ?? '',
            attributes: flatten(s.attributes),
            resource: flatten(resource?.attributes),
          });
        }
      }
    }
  }

  /** The spans below `root` in its trace, however deep. */
  descendantsOf(root: ReceivedSpan): ReceivedSpan[] {
    const found: ReceivedSpan[] = [];
    const ids = new Set([root.spanId]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const s of this.spans) {
        if (s.traceId === root.traceId && s.parentSpanId !== undefined && ids.has(s.parentSpanId) && !ids.has(s.spanId)) {
          ids.add(s.spanId);
          found.push(s);
          grew = true;
        }
      }
    }
    return found;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './eventually';

/** One POST a receiver got. */
export interface Received {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly at: number;
}

type Behaviour = (req: IncomingMessage, res: ServerResponse, nth: number) => void;

/**
 * A real HTTP server on 127.0.0.1 standing in for a customer's webhook receiver: records every
 * request, and answers each path as told (`on(path, behaviour)`; default 200 "ok").
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly counts = new Map<string, number>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const nth = (receiver.counts.get(path) ?? 0) + 1;
        receiver.counts.set(path, nth);
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        receiver.received.push({ path, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        const behaviour = receiver.behaviours.get(path);
        if (behaviour === undefined) res.end('ok');
        else behaviour(req, res, nth);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  on(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Waits until `path` got at least `n` requests (deliveries take up to a poll interval, retries seconds). */
  async waitFor(path: string, n = 1, timeoutMs = 10_000): Promise<Received[]> {
    return eventually(
      () => {
        const got = this.at(path);
        return got.length >= n ? got : false;
      },
      { timeoutMs, intervalMs: 50 },
    );
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

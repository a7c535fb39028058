import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the fake answers one request. */
export type Reply =
  | { status: number; body?: unknown; raw?: string; headers?: Record<string, string> }
  /** Reads the request, then destroys the connection without a byte of answer. */
  | 'drop'
  /** Reads the request and never answers (until the server closes). */
  | 'hang'
  /** Sends the status line and headers, then hangs before the body. */
  | 'hang-body';

export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export const VALID = {
  valid: true,
  issuedAt: '2026-03-01T12:00:00.000Z',
  hostname: 'shop.example.com',
  effort: { algorithm: 'PBKDF2/SHA-256', cost: 1000, expectedSolveMs: 400, solveMs: 600, surge: false },
};

/**
 * A stand-in for Gatehouse on 127.0.0.1: answers the scripted replies in turn (then the last one
 * again), records every request. Its `url` is a baseUrl for GatehouseVerifier.
 */
export class FakeGatehouse {
  readonly received: Received[] = [];
  private script: Reply[] = [];
  private readonly sockets = new Set<Socket>();
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeGatehouse> {
    const handler: { fake?: FakeGatehouse } = {};
    const server = createServer((req, res) => void handler.fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const fake = new FakeGatehouse(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    handler.fake = fake;
    server.on('connection', (s) => {
      fake.sockets.add(s);
      s.on('close', () => fake.sockets.delete(s));
    });
    return fake;
  }

  /** The replies to the next requests, in order; the last repeats. Clears what was received. */
  answer(...replies: Reply[]): this {
    this.script = replies;
    this.received.length = 0;
    return this;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    this.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
    const reply = this.script.length > 1 ? this.script.shift()! : (this.script[0] ?? { status: 200, body: VALID });
    if (reply === 'drop') return void req.socket.destroy();
    if (reply === 'hang') return;
    if (reply === 'hang-body') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.flushHeaders();
      return;
    }
    const text = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
    res.writeHead(reply.status, {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': `req-${this.received.length}`,
      ...reply.headers,
    });
    res.end(text);
  }

  /** Closes the server and every connection it holds (hung ones too). */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** An error body as Gatehouse sends them. */
export const apiError = (status: number, error: string, headers?: Record<string, string>): Reply => ({
  status,
  body: { statusCode: status, error, message: `${error} happened`, requestId: 'req-x' },
  headers,
});

import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import { eventually } from './eventually';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A redis-server of the test's own on a spare port, to stop, freeze and restart (never the shared one). */
export class PrivateRedis {
  private process?: ChildProcess;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.start();
    return redis;
  }

  /** A spare port with no redis-server on it yet: `start()` brings one up there. */
  static async reserve(): Promise<PrivateRedis> {
    return new PrivateRedis(await freePort());
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.process = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const answers = async () => {
      const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.ping();
      } finally {
        client.disconnect();
      }
    };
    await eventually(answers, { intervalMs: 50 }).catch((err: Error) => {
      throw new Error(`redis-server did not start on ${this.port}: ${err.message}`);
    });
  }

  freeze(): void {
    this.process?.kill('SIGSTOP');
  }

  thaw(): void {
    this.process?.kill('SIGCONT');
  }

  async kill(): Promise<void> {
    const p = this.process;
    if (p === undefined || p.exitCode !== null || p.signalCode !== null) return; // not started, or already gone
    p.kill('SIGCONT');
    p.kill('SIGKILL');
    await once(p, 'exit');
  }

  async get(key: string): Promise<string | null> {
    const client = new Redis(this.url, { maxRetriesPerRequest: 0 });
    try {
      return await client.get(key);
    } finally {
      client.disconnect();
    }
  }
}

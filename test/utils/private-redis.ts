import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import type { RedisTarget } from '../../src/common/redis-client';
import { eventually } from './eventually';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once a redis-server on `port` answers PING; throws if none does within 5 s. */
async function untilAnswers(port: number): Promise<void> {
  const answers = async () => {
    const client = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
    } finally {
      client.disconnect();
    }
  };
  await eventually(answers, { intervalMs: 50 }).catch((err: Error) => {
    throw new Error(`redis-server did not start on ${port}: ${err.message}`);
  });
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

  get target(): RedisTarget {
    return { url: this.url, cluster: false };
  }

  async start(): Promise<void> {
    this.process = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await untilAnswers(this.port);
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

/**
 * A Redis Cluster of the test's own: `primaries` redis-servers with `--cluster-enabled yes` on spare
 * ports, joined by `redis-cli --cluster create` (no replicas), each with its own nodes file in a
 * temporary directory so a node killed and started again rejoins with its slots.
 */
export class PrivateRedisCluster {
  private readonly processes = new Map<number, ChildProcess>();

  private constructor(
    readonly ports: number[],
    private readonly dir: string,
  ) {}

  static async start(primaries = 3): Promise<PrivateRedisCluster> {
    const ports: number[] = [];
    for (let i = 0; i < primaries; i++) ports.push(await freePort());
    const cluster = new PrivateRedisCluster(ports, mkdtempSync(join(tmpdir(), 'gatehouse-redis-cluster-')));
    await Promise.all(ports.map((port) => cluster.startNode(port)));
    await new Promise<void>((resolve, reject) =>
      execFile(
        'redis-cli',
        ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
        (err, _stdout, stderr) => (err ? reject(new Error(`redis-cli --cluster create failed: ${stderr}`)) : resolve()),
      ),
    );
    await cluster.healthy();
    return cluster;
  }

  /** One node's address: a client finds the rest from it. */
  get target(): RedisTarget {
    return { url: `redis://127.0.0.1:${this.ports[0]}`, cluster: true };
  }

  /** The port of the primary that owns `key`'s slot (its hash tag's, when it has one). */
  async portOf(key: string): Promise<number> {
    const client = this.client();
    try {
      const slot = (await client.call('CLUSTER', 'KEYSLOT', key)) as number;
      const ranges = (await client.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
      const owner = ranges.find(([from, to]) => slot >= from && slot <= to);
      if (owner === undefined) throw new Error(`no node owns slot ${slot}`);
      return owner[2][1];
    } finally {
      client.disconnect();
    }
  }

  async get(key: string): Promise<string | null> {
    const client = new Redis(`redis://127.0.0.1:${await this.portOf(key)}`, { maxRetriesPerRequest: 0 });
    try {
      return await client.get(key);
    } finally {
      client.disconnect();
    }
  }

  async killNode(port: number): Promise<void> {
    const p = this.processes.get(port);
    if (p === undefined || p.exitCode !== null || p.signalCode !== null) return;
    p.kill('SIGKILL');
    await once(p, 'exit');
  }

  /** Starts a killed node again; it reads its nodes file and serves its slots as before. */
  async restartNode(port: number): Promise<void> {
    await this.startNode(port);
    await this.healthy();
  }

  async kill(): Promise<void> {
    await Promise.all(this.ports.map((port) => this.killNode(port)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private client(): Redis {
    const client = new Redis(`redis://127.0.0.1:${this.ports[0]}`, { maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    return client;
  }

  private async startNode(port: number): Promise<void> {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    args.push('--cluster-enabled', 'yes', '--cluster-config-file', join(this.dir, `nodes-${port}.conf`), '--cluster-node-timeout', '2000');
    this.processes.set(port, spawn('redis-server', args, { cwd: this.dir, stdio: 'ignore' }));
    await untilAnswers(port);
  }

  /** Every node says the cluster is ok (all slots served). */
  private async healthy(): Promise<void> {
    await eventually(
      async () => {
        for (const port of this.ports) {
          const client = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 0 });
          client.on('error', () => undefined);
          try {
            expect(String(await client.call('CLUSTER', 'INFO'))).toContain('cluster_state:ok');
          } finally {
            client.disconnect();
          }
        }
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  }
}

import Redis, { Cluster, RedisOptions } from 'ioredis';

/** Where Redis is: `REDIS_URL`, and whether it names a node of a Redis (or Valkey) Cluster (`REDIS_CLUSTER=true`). */
export interface RedisTarget {
  readonly url: string;
  readonly cluster: boolean;
}

/** A connection to one Redis server, or to a cluster through one of its nodes. */
export type RedisClient = Redis | Cluster;

/** What the callers set; the same for a server and a cluster. */
export interface RedisClientOptions {
  /** A command not answered within this many ms fails (unset: waits). */
  readonly commandTimeout?: number;
  /** false: a command sent while disconnected fails at once instead of waiting for the connection. */
  readonly enableOfflineQueue?: boolean;
  /** 0: a command that failed is not sent again. */
  readonly maxRetriesPerRequest?: number;
  readonly retryStrategy?: (times: number) => number;
}

/**
 * Connects to `target`. A cluster is found from the one node named: ioredis asks it for the slot
 * map, sends each command to the primary that owns its keys' slot, and follows the map as it
 * changes (MOVED, failover). A command's keys must then share one slot: callers that send several
 * keys at once give them one hash tag (`{…}`) or group them by slot (`slotOf`).
 */
export function connectRedis(target: RedisTarget, options: RedisClientOptions): RedisClient {
  const { enableOfflineQueue, retryStrategy, ...perNode } = options;
  if (!target.cluster) return new Redis(target.url, { ...perNode, enableOfflineQueue, retryStrategy } satisfies RedisOptions);
  const url = new URL(target.url);
  return new Cluster([{ host: url.hostname, port: Number(url.port || 6379) }], {
    enableOfflineQueue,
    // A cluster that says CLUSTERDOWN fails the command at once, and a closed node connection is tried
    // again at most 4 times 50 ms apart (a connection still being made right after the start), as one
    // server that is down fails at once: callers fall back within their timeout instead of ioredis
    // retrying for seconds (measured: 1.3–1.9 s per command with its defaults). MOVED and ASK are
    // followed within the same 4 redirections.
    retryDelayOnFailover: 50,
    retryDelayOnClusterDown: 0,
    maxRedirections: 4,
    clusterRetryStrategy: retryStrategy,
    redisOptions: {
      ...perNode,
      username: url.username === '' ? undefined : decodeURIComponent(url.username),
      password: url.password === '' ? undefined : decodeURIComponent(url.password),
      tls: url.protocol === 'rediss:' ? {} : undefined,
    },
  });
}

/**
 * Resolves once `redis` is ready, has failed its first connection attempt, or after `maxMs`,
 * whichever comes first; never rejects. An instance waits this long for Redis at start and no
 * longer: a Redis that is down must not keep the API from starting (ioredis keeps reconnecting).
 * `events.once(redis, 'ready')` rejects on the first 'error' (ECONNREFUSED), which failed the start.
 */
export function firstConnectionAttempt(redis: RedisClient, maxMs = 2000): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, maxMs);
    timer.unref();
    redis.once('ready', done);
    redis.once('error', done);
  });
}

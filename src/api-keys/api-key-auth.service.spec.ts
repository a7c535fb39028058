import { loadUnderFakeClock } from '../../test/utils/fake-clock';
import type * as AuthServiceModule from './api-key-auth.service';
import type * as InvalidationModule from '../cache/invalidation.service';
import type { AppConfig } from '../config/app-config';
import { Metrics } from '../metrics/metrics';
import type { PrismaService } from '../prisma/prisma.service';
import { generateApiKey, hashApiKey } from './api-key-secret';

interface Row {
  id: string;
  accountId: string;
  scopes: string[];
  allowedOrigins: string[];
  expiresAt: Date | null;
  hash: string;
  previousHash: string | null;
  previousHashExpiresAt: Date | null;
  status: 'active' | 'revoked';
}

type Where = { OR: [{ hash: { in: string[] } }, { previousHash: { in: string[] } }] };

const rowOf = (id: string, secret: string): Row => ({
  id,
  accountId: 'a-1',
  scopes: ['public'],
  allowedOrigins: [],
  expiresAt: null,
  hash: hashApiKey(secret),
  previousHash: null,
  previousHashExpiresAt: null,
  status: 'active',
});

/**
 * The key look-up as the cache drives it, over a table kept in memory: `findMany` answers the same
 * where clause the service sends PostgreSQL. The rows are changed behind the cache's back, as an
 * instance whose invalidation message was lost would see them change.
 */
describe('ApiKeyAuthService', () => {
  const EMBEDDED_REFRESH_MS = 10 * 60_000;
  let rows: Row[];
  let queries: string[][];
  let service: AuthServiceModule.ApiKeyAuthService;

  beforeEach(() => {
    const { ApiKeyAuthService, CacheInvalidation } = loadUnderFakeClock(Date.UTC(2026, 0, 1), () => ({
      ...(require('./api-key-auth.service') as typeof AuthServiceModule),
      ...(require('../cache/invalidation.service') as typeof InvalidationModule),
    }));
    rows = [];
    queries = [];
    const prisma = {
      apiKey: {
        findMany: ({ where }: { where: Where }) => {
          const [{ hash: current }, { previousHash: previous }] = where.OR;
          queries.push(current.in);
          return Promise.resolve(
            rows.filter((r) => current.in.includes(r.hash) || (r.previousHash !== null && previous.in.includes(r.previousHash))),
          );
        },
      },
    } as unknown as PrismaService;
    const config = { redis: undefined, databaseUrl: undefined, redisKeyPrefix: 'test:' } as unknown as AppConfig;
    service = new ApiKeyAuthService(prisma, new CacheInvalidation(config, new Metrics({ metrics: {} } as AppConfig)), config);
  });

  afterEach(() => jest.useRealTimers());

  /** The key id `secret` authenticates as, or the error code it is refused with. */
  async function verdict(secret: string): Promise<string> {
    try {
      return (await service.authenticate(secret)).keyId;
    } catch (err) {
      return (err as { code?: string }).code ?? String(err);
    }
  }

  it('refreshes every key in use with one query, and each key gets its own row', async () => {
    const [a, b, c, d, unknown] = [generateApiKey(), generateApiKey(), generateApiKey(), generateApiKey(), generateApiKey()];
    rows.push(rowOf('k-a', a), rowOf('k-b', b), rowOf('k-c', c), rowOf('k-d', d));
    expect(await Promise.all([a, b, c, d, unknown].map(verdict))).toEqual(['k-a', 'k-b', 'k-c', 'k-d', 'invalid_api_key']);
    expect(queries).toHaveLength(5); // the misses: one query each

    // Changed without an invalidation: a revoked, b rotated with a grace period, c rotated without,
    // and the unknown key issued.
    const [b2, c2] = [generateApiKey(), generateApiKey()];
    rows[0].status = 'revoked';
    Object.assign(rows[1], { hash: hashApiKey(b2), previousHash: hashApiKey(b), previousHashExpiresAt: new Date(Date.now() + 3_600_000) });
    rows[2].hash = hashApiKey(c2);
    rows.push(rowOf('k-new', unknown));

    jest.advanceTimersByTime(EMBEDDED_REFRESH_MS);
    expect(await Promise.all([a, b, c, d, unknown].map(verdict))).toEqual(['k-a', 'k-b', 'k-c', 'k-d', 'invalid_api_key']); // due: answered from the cache
    await jest.advanceTimersByTimeAsync(1_000);

    expect(queries.slice(5)).toEqual([[a, b, c, d, unknown].map(hashApiKey)]);
    expect(await Promise.all([a, b, c, d, unknown, b2, c2].map(verdict))).toEqual([
      'invalid_api_key', // revoked
      'k-b', // the old secret, in its grace period
      'invalid_api_key', // rotated away
      'k-d',
      'k-new',
      'k-b',
      'k-c',
    ]);
  });
});

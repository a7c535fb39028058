import type { ApiKeyPrincipal, UserPrincipal } from '../common/principal';
import type { AppConfig } from '../config/app-config';
import type { PrismaService } from '../prisma/prisma.service';
import { Metrics } from '../metrics/metrics';
import { UsageRecorder } from './usage.recorder';

const key: ApiKeyPrincipal = {
  kind: 'apiKey',
  keyId: 'k-1',
  accountId: 'a-1',
  scopes: ['public'],
  allowedOrigins: [],
  challengeWaitMs: null,
  testVerdict: null,
};
const user: UserPrincipal = { kind: 'user', userId: 'u-1', email: 'owner@example.com', accountId: 'a-1', role: 'OWNER' };
const MINUTE = Date.UTC(2026, 0, 1, 12, 0);

/** The rows one INSERT would write: the seven unnest arrays zipped back together. */
type Row = [accountId: string, kind: string, subjectId: string, endpoint: string, status: number, minute: string, count: number];

describe(UsageRecorder.name, () => {
  let writes: Row[][];
  let failNext: boolean;
  let recorder: UsageRecorder;

  beforeEach(() => {
    writes = [];
    failNext = false;
    const prisma = {
      $executeRaw: (_sql: TemplateStringsArray, ...columns: unknown[][]) => {
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('connection lost'));
        }
        writes.push(columns[0].map((_, i) => columns.map((c) => c[i]) as Row));
        return Promise.resolve(columns[0].length);
      },
    } as unknown as PrismaService;
    recorder = new UsageRecorder(prisma, { usageFlushIntervalMs: 5_000 } as AppConfig, new Metrics({ metrics: {} } as AppConfig));
  });

  const sorted = (rows: Row[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

  it('writes one row per subject, endpoint, status and minute, with its count', async () => {
    for (let i = 0; i < 3; i++)
      recorder.record({ principal: key, endpoint: 'GET /api/v1/public/ping', status: 200, at: MINUTE + i * 1000 });
    recorder.record({ principal: key, endpoint: 'GET /api/v1/public/ping', status: 429, at: MINUTE + 5_000 });
    recorder.record({ principal: key, endpoint: 'GET /api/v1/public/ping', status: 200, at: MINUTE + 60_000 });
    recorder.record({ principal: key, endpoint: 'GET /api/v1/widget/config', status: 200, at: MINUTE });
    recorder.record({ principal: user, endpoint: 'GET /api/v1/auth/me', status: 200, at: MINUTE + 59_999 });
    await recorder.flush();
    const at = (ms: number) => new Date(ms).toISOString();
    expect(writes).toHaveLength(1);
    expect(sorted(writes[0])).toEqual(
      sorted([
        ['a-1', 'apiKey', 'k-1', 'GET /api/v1/public/ping', 200, at(MINUTE), 3],
        ['a-1', 'apiKey', 'k-1', 'GET /api/v1/public/ping', 429, at(MINUTE), 1],
        ['a-1', 'apiKey', 'k-1', 'GET /api/v1/public/ping', 200, at(MINUTE + 60_000), 1],
        ['a-1', 'apiKey', 'k-1', 'GET /api/v1/widget/config', 200, at(MINUTE), 1],
        ['a-1', 'user', 'u-1', 'GET /api/v1/auth/me', 200, at(MINUTE), 1],
      ]),
    );
    await recorder.flush();
    expect(writes).toHaveLength(1); // nothing new: no second insert
  });

  it('keeps the counts of a failed write and adds them to the next one', async () => {
    recorder.record({ principal: key, endpoint: 'GET /api/v1/public/ping', status: 200, at: MINUTE });
    recorder.record({ principal: key, endpoint: 'GET /api/v1/public/ping', status: 200, at: MINUTE + 1 });
    failNext = true;
    await recorder.flush();
    expect(writes).toHaveLength(0);
    recorder.record({ principal: key, endpoint: 'GET /api/v1/public/ping', status: 200, at: MINUTE + 2 });
    await recorder.flush();
    expect(writes).toEqual([[['a-1', 'apiKey', 'k-1', 'GET /api/v1/public/ping', 200, new Date(MINUTE).toISOString(), 3]]]);
  });

  it('writes, when asked for closed minutes only, the buckets whose minute is over and keeps the rest', async () => {
    const at = (ms: number) => new Date(ms).toISOString();
    recorder.record({ principal: key, endpoint: 'GET /api/v1/public/ping', status: 200, at: MINUTE + 1_000 });
    recorder.record({ principal: key, endpoint: 'GET /api/v1/public/ping', status: 200, at: MINUTE + 60_000 });
    recorder.record({ principal: user, endpoint: 'GET /api/v1/auth/me', status: 200, at: MINUTE + 59_999 });
    recorder.record({ principal: user, endpoint: 'GET /api/v1/account', status: 200, at: MINUTE + 61_000 });
    const now = jest.spyOn(Date, 'now').mockReturnValue(MINUTE + 70_000);
    try {
      await recorder.flush('closed');
      expect(writes).toHaveLength(1);
      expect(sorted(writes[0])).toEqual(
        sorted([
          ['a-1', 'apiKey', 'k-1', 'GET /api/v1/public/ping', 200, at(MINUTE), 1],
          ['a-1', 'user', 'u-1', 'GET /api/v1/auth/me', 200, at(MINUTE), 1],
        ]),
      );
      await recorder.flush('closed');
      expect(writes).toHaveLength(1); // the open minute stays in memory
      await recorder.flush();
      expect(sorted(writes[1])).toEqual(
        sorted([
          ['a-1', 'apiKey', 'k-1', 'GET /api/v1/public/ping', 200, at(MINUTE + 60_000), 1],
          ['a-1', 'user', 'u-1', 'GET /api/v1/account', 200, at(MINUTE + 60_000), 1],
        ]),
      );
    } finally {
      now.mockRestore();
    }
  });
});

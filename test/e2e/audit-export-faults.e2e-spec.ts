import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrivatePostgres } from '../utils/private-postgres';
import { createAccount, insertSignIns, startApp, TestAccount, TestApp } from '../utils/test-app';

const EVENTS = 50_000;

/** What a client saw of a download: its status, the bytes that came, and whether the answer was whole. */
interface Seen {
  readonly status: number | undefined;
  readonly bytes: number;
  readonly complete: boolean;
}

describe('an audit CSV export when PostgreSQL stops in the middle of it', () => {
  let pg: PrivatePostgres;
  let t: TestApp;
  let account: TestAccount;
  let port: number;

  beforeAll(async () => {
    pg = await PrivatePostgres.start();
    pg.migrate();
    t = await startApp({ DATABASE_URL: pg.url });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    account = await createAccount(t);
    await insertSignIns(t, account, EVENTS);
    await t.prisma.$executeRawUnsafe('ANALYZE "AuditEvent"');
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await pg?.destroy();
  });

  /** The export, read by a client that stops reading after the first bytes while `pause` runs. */
  const download = (pause: () => Promise<void>) =>
    new Promise<Seen>((resolve, reject) => {
      const req = get(
        { host: '127.0.0.1', port, path: '/api/v1/audit-log/export.csv', headers: { authorization: `Bearer ${account.owner.token}` } },
        (res) => {
          let bytes = 0;
          let paused = false;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (paused) return;
            paused = true;
            res.pause();
            pause().then(() => res.resume(), reject);
          });
          res.on('error', () => undefined); // "aborted": seen in `complete` below
          res.on('close', () => resolve({ status: res.statusCode, bytes, complete: res.complete }));
        },
      );
      req.on('error', reject);
    });

  it('sends the whole file while the database answers', async () => {
    const seen = await download(() => Promise.resolve());
    expect(seen).toEqual({ status: 200, bytes: expect.any(Number), complete: true });
    expect(seen.bytes).toBeGreaterThan(EVENTS * 100);
  });

  it('cuts the connection, so the client sees an incomplete download rather than a short file that looks whole', async () => {
    const seen = await download(() => pg.stopImmediately());
    expect(seen.status).toBe(200);
    expect(seen.complete).toBe(false);
    expect(seen.bytes).toBeGreaterThan(0);
  });
});

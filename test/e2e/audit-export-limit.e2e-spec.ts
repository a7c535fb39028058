import { ClientRequest, get, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AUDIT_EXPORTS_AT_ONCE } from '../../src/audit/audit.controller';
import { eventually } from '../utils/eventually';
import { createAccount, expectError, expectRateLimitHeaders, insertSignIns, startApp, TestAccount, TestApp } from '../utils/test-app';

/** Enough events that an export a client does not read stays open: ~9 MB, more than the sockets buffer. */
const EVENTS = 30_000;

/** An export whose client reads nothing after the status line: it runs until `stop()`. */
interface HeldExport {
  readonly res: IncomingMessage;
  stop(): void;
}

describe('CSV exports of one account at once', () => {
  let t: TestApp;
  let account: TestAccount;
  let port: number;
  const held: ClientRequest[] = [];

  beforeAll(async () => {
    t = await startApp();
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    account = await createAccount(t);
    await insertSignIns(t, account, EVENTS);
  }, 120_000);
  afterAll(async () => {
    for (const req of held) req.destroy();
    await t?.close();
  });

  const hold = (token: string) =>
    new Promise<HeldExport>((resolve, reject) => {
      const req = get(
        { host: '127.0.0.1', port, path: '/api/v1/audit-log/export.csv', headers: { authorization: `Bearer ${token}` } },
        (res) => {
          res.pause();
          res.on('error', () => undefined); // the abort of stop()
          resolve({ res, stop: () => req.destroy() });
        },
      );
      held.push(req);
      req.on('error', reject);
    });

  const exportCsv = (token: string) => t.http.get('/api/v1/audit-log/export.csv').set('Authorization', `Bearer ${token}`);

  it(`sends ${AUDIT_EXPORTS_AT_ONCE} at once, refuses one more with 429 and Retry-After, and takes new ones as the running ones end`, async () => {
    const running = [];
    for (let i = 0; i < AUDIT_EXPORTS_AT_ONCE; i++) running.push(await hold(account.owner.token));
    expect(running.map((r) => r.res.statusCode)).toEqual(Array(AUDIT_EXPORTS_AT_ONCE).fill(200));

    const admin = await account.addUser('ADMIN');
    const refused = await exportCsv(admin.token);
    expectError(refused, 429, 'rate_limit_exceeded');
    expect(refused.body.message).toContain(`At most ${AUDIT_EXPORTS_AT_ONCE} exports`);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expectRateLimitHeaders(refused);

    // Another account's export is its own.
    const other = await createAccount(t);
    expect((await exportCsv(other.owner.token)).status).toBe(200);

    // A client that gives up frees its turn; an export read to its end does too.
    running[0].stop();
    const whole = await eventually(async () => {
      const res = await exportCsv(admin.token);
      expect(res.status).toBe(200);
      return res;
    });
    expect(whole.text.split('\r\n').filter((line) => line.includes('bulk-'))).toHaveLength(EVENTS);
    await eventually(async () => {
      const next = await hold(account.owner.token);
      if (next.res.statusCode !== 200) next.stop();
      expect(next.res.statusCode).toBe(200);
    });
    expectError(await exportCsv(admin.token), 429, 'rate_limit_exceeded');
  }, 120_000);
});

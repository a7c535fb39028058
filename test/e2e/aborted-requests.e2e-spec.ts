import { existsSync, readFileSync } from 'node:fs';
import { type AddressInfo, connect } from 'node:net';
import type { Logger as PinoLogger } from 'pino';
import { PINO } from '../../src/logging/logging.module';
import { logFileFor } from '../utils/log-scan';
import { eventually } from '../utils/eventually';
import { createAccount, startApp, TestApp } from '../utils/test-app';

type LogLine = Record<string, unknown>;

// Nest's own log lines (the exception filter's) go to the logger of the first app a test file
// starts (nestjs-pino keeps one root logger per process), so this file starts only one.
describe('a client that leaves in the middle of its body', () => {
  let t: TestApp;
  const logFile = logFileFor(`aborted-requests-${process.pid}`);

  beforeAll(async () => {
    t = await startApp({ LOG_LEVEL: 'debug', LOG_FILE: logFile });
  });
  afterAll(() => t.close());

  /** The lines about `requestId`, once one is there (logging is asynchronous; none after 5 s: []). */
  async function linesAbout(requestId: string): Promise<LogLine[]> {
    const read = async () => {
      await new Promise<void>((resolve) => t.app.get<PinoLogger>(PINO).flush(() => resolve()));
      const text = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
      return text
        .split('\n')
        .filter((l) => l.includes(requestId))
        .map((l) => JSON.parse(l) as LogLine);
    };
    return eventually(async () => (await read()).length > 0).then(read, () => []);
  }

  it('is logged at debug level, not as a failure or a database outage, and creates nothing', async () => {
    const account = await createAccount(t);
    const server = t.app.getHttpServer();
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    // Expect: 100-continue — the server's "100 Continue" says the request has reached the app.
    socket.write(
      'POST /api/v1/api-keys HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n' +
        `Authorization: Bearer ${account.owner.token}\r\nX-Request-Id: aborted-body-1\r\nExpect: 100-continue\r\n\r\n`,
    );
    await new Promise((resolve) => socket.once('data', resolve));
    socket.write('{"name":"x');
    socket.destroy();
    expect(await linesAbout('aborted-body-1')).toEqual([expect.objectContaining({ level: 20, msg: expect.stringContaining('went away') })]);
    expect(await t.prisma.apiKey.count({ where: { accountId: account.id } })).toBe(0);
  });
});

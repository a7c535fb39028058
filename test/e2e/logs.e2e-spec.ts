import { existsSync, readFileSync } from 'node:fs';
import { sign } from 'jsonwebtoken';
import { generateApiKey } from '../../src/api-keys/api-key-secret';
import type { Logger as PinoLogger } from 'pino';
import { PINO } from '../../src/logging/logging.module';
import { eventually } from '../utils/eventually';
import { findSecrets, logFileFor } from '../utils/log-scan';
import { createAccount, createPlan, startApp, TEST_PASSWORD, TestApp } from '../utils/test-app';

type LogLine = Record<string, unknown>;

/** The file's lines once one matches `until` (logging is asynchronous). */
function logLines(t: TestApp, file: string, until: (line: LogLine) => boolean): Promise<LogLine[]> {
  return eventually(async () => {
    await new Promise<void>((resolve) => t.app.get<PinoLogger>(PINO).flush(() => resolve()));
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const lines = text.endsWith('\n')
      ? text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as LogLine)
      : [];
    return lines.some(until) && lines;
  });
}

describe('logs', () => {
  it('the scanner run after the e2e suites finds each kind of secret', () => {
    const jwt = sign({ sub: 'x' }, 'a secret long enough to sign with', { expiresIn: 60 });
    const text = ['clean line', `key ${generateApiKey()}`, `token ghi_${'A'.repeat(43)}`, `jwt ${jwt}`, `pw ${TEST_PASSWORD}`].join('\n');
    expect(findSecrets(text).map((l) => [l.line, l.kind])).toEqual([
      [2, 'API key'],
      [3, 'invitation token'],
      [4, 'JWT'],
      [5, 'password'],
    ]);
  });

  it('are JSON lines with request id, route template, status and latency, and carry no credential', async () => {
    const t = await startApp();
    try {
      const account = await createAccount(t);
      const { key } = await account.createKey();
      await t.http.get('/api/v1/public/ping').set('X-Api-Key', key).set('X-Request-Id', 'log-test-1').expect(200);
      await t.http.post('/api/v1/auth/login').send({ email: account.owner.email, password: TEST_PASSWORD }).expect(200);
      const lines = await logLines(t, t.config.logFile!, (l) => l.route === 'POST /api/v1/auth/login');
      expect(lines).toContainEqual(
        expect.objectContaining({
          reqId: 'log-test-1',
          route: 'GET /api/v1/public/ping',
          status: 200,
          ms: expect.any(Number),
          msg: 'request',
        }),
      );
      expect(findSecrets(readFileSync(t.config.logFile!, 'utf8'))).toEqual([]);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('by default (LOG_REQUESTS=errors) log refusals and failures but not successes or 429s', async () => {
    const logFile = logFileFor(`errors-mode-${process.pid}`);
    const t = await startApp({ LOG_REQUESTS: 'errors', LOG_FILE: logFile });
    try {
      const account = await createAccount(t, await createPlan(t, 1, 100));
      const { key } = await account.createKey();
      await t.http.get('/api/v1/public/ping').set('X-Api-Key', key).set('X-Request-Id', 'errors-mode-200').expect(200);
      await t.http.get('/api/v1/public/ping').set('X-Api-Key', key).set('X-Request-Id', 'errors-mode-429').expect(429);
      await t.http.get('/api/v1/public/ping').set('X-Api-Key', generateApiKey()).set('X-Request-Id', 'errors-mode-401').expect(401);
      // Writes are asynchronous and in order: once the last request's line is there, all are.
      const lines = await logLines(t, logFile, (l) => l.reqId === 'errors-mode-401');
      expect(lines.filter((l) => l.msg === 'request').map((l) => l.reqId)).toEqual(['errors-mode-401']);
    } finally {
      await t.close();
    }
  }, 60_000);
});

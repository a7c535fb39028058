import { readFileSync } from 'node:fs';
import { sign } from 'jsonwebtoken';
import { generateApiKey } from '../../src/api-keys/api-key-secret';
import type { Logger as PinoLogger } from 'pino';
import { PINO } from '../../src/logging/logging.module';
import { findSecrets } from '../utils/log-scan';
import { createAccount, startApp, TEST_PASSWORD } from '../utils/test-app';

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
      await new Promise<void>((resolve) => t.app.get<PinoLogger>(PINO).flush(() => resolve())); // writes are asynchronous
      const lines = readFileSync(t.config.logFile!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toContainEqual(expect.objectContaining({ reqId: 'log-test-1', route: 'GET /api/v1/public/ping', status: 200, ms: expect.any(Number), msg: 'request' }));
      expect(findSecrets(readFileSync(t.config.logFile!, 'utf8'))).toEqual([]);
    } finally {
      await t.close();
    }
  }, 60_000);
});

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppProcess } from '../utils/app-process';
import { altchaPayload, solve, type V2Challenge } from '../utils/widget';

describe('DATA_DIR=memory://', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-in-memory-'));
  const owner = { email: 'owner@example.com', password: 'a long and careful password' };
  let app: AppProcess;

  beforeAll(async () => {
    app = await AppProcess.start(
      { DATA_DIR: 'memory://', BOOTSTRAP_OWNER_EMAIL: owner.email, BOOTSTRAP_OWNER_PASSWORD: owner.password },
      { cwd: dir },
    );
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('signs tokens and widget challenges with secrets that exist only in the process: no file is written', async () => {
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${app.url}/api/v1${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const login = await post('/auth/login', owner);
    expect(login.status).toBe(200);
    const { token } = (await login.json()) as { token: string };
    const created = await post('/api-keys', { name: 'widget', challengeWaitMs: 250 }, { authorization: `Bearer ${token}` });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    const challenge = (await (await fetch(`${app.url}/api/v1/widget/challenge`, { headers: { 'x-api-key': key } })).json()) as V2Challenge;
    const nonce = await post('/widget/nonces', { altcha: altchaPayload(challenge, solve(challenge)) }, { 'x-api-key': key });
    expect(nonce.status).toBe(201);

    expect(readdirSync(dir)).toEqual([]);
  });
});

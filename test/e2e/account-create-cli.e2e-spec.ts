import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { buildOnce } from '../utils/app-process';
import { expectError, startApp, TestApp } from '../utils/test-app';

const ROOT = resolve(__dirname, '../..');

/** `npm run account:create` as an operator runs it (the built CLI), on the database the app then opens. */
describe('npm run account:create', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'account-create-'));
  // The app's database: the machine's PostgreSQL when the suite runs there, else an embedded one on disk.
  const database = process.env.E2E_DATABASE_URL ? { DATABASE_URL: process.env.E2E_DATABASE_URL } : { DATA_DIR: dataDir };
  const email = `operator-${randomUUID()}@example.com`;
  const password = 'an operator chose this';

  async function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
    const { DATABASE_URL: _url, DATA_DIR: _dir, ...inherited } = process.env;
    return promisify(execFile)(process.execPath, [join(ROOT, 'dist/cli/create-account.js'), ...args], {
      cwd: ROOT,
      env: { ...inherited, ...database, ...env },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, out: err.stdout + err.stderr }),
    );
  }

  beforeAll(() => buildOnce(), 180_000);

  it('creates an account whose OWNER can log in, and refuses a second one for the same email, changing nothing', async () => {
    const created = await run(['--email', email.toUpperCase(), '--name', 'Operator Inc', '--plan', 'pro'], { OWNER_PASSWORD: password });
    expect(created).toMatchObject({ code: 0, out: expect.stringContaining(`with OWNER ${email}`) });
    expect(created.out).not.toContain(password);

    const again = await run(['--email', email, '--name', 'Second'], { OWNER_PASSWORD: 'another long password' });
    expect(again).toMatchObject({ code: 1, out: expect.stringContaining('A user with this email exists') });
    const weak = await run(['--email', `weak-${email}`, '--name', 'Weak'], { OWNER_PASSWORD: 'short' });
    expect(weak).toMatchObject({ code: 1, out: expect.stringContaining('password must be at least 12 characters') });
    // An address login would refuse (a one-letter top-level domain): its owner could never sign in.
    const unusable = await run(['--email', 'owner@example.c', '--name', 'Unusable'], { OWNER_PASSWORD: password });
    expect(unusable).toMatchObject({ code: 1, out: expect.stringContaining('email must be an email address') });

    let t: TestApp | undefined;
    try {
      t = await startApp(database);
      const login = await t.http.post('/api/v1/auth/login').send({ email, password }).expect(200);
      const me = await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${login.body.token}`).expect(200);
      expect(me.body).toMatchObject({ email, role: 'OWNER', account: { name: 'Operator Inc' }, plan: { id: 'pro' } });
      expectError(await t.http.post('/api/v1/auth/login').send({ email: `weak-${email}`, password: 'short' }), 401, 'invalid_credentials');
      expect(await t.prisma.account.count({ where: { name: { in: ['Second', 'Weak', 'Unusable'] } } })).toBe(0);
    } finally {
      await t?.close();
    }
  }, 120_000);
});

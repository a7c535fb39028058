import { execFile, execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { embeddedPaths } from '../../src/prisma/embedded-directory';
import { AppProcess, createKeyOn, keyNamesOn, signInTo } from '../utils/app-process';
import { eventually } from '../utils/eventually';
import { onRealServices } from '../utils/test-app';

const ROOT = resolve(__dirname, '../..');
const OWNER = { email: 'owner@example.com', password: 'a long enough password' };

/** `npm run db:backup` / `db:restore` as an operator runs them (the built CLI): exit code and all it printed. */
async function cli(
  command: 'db-backup' | 'db-restore' | 'db-export' | 'db-import',
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; out: string }> {
  const { DATABASE_URL: _url, DATA_DIR: _dir, ...inherited } = process.env;
  return promisify(execFile)(process.execPath, [join(ROOT, `dist/cli/${command}.js`), ...args], {
    cwd: ROOT,
    env: { ...inherited, ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, out: err.stdout + err.stderr }),
  );
}

/** Every file under `dir` with its size and modification time: what a refused restore must leave as it was. */
const snapshot = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      const { size, mtimeMs } = statSync(path);
      return `${path} ${size} ${mtimeMs}`;
    })
    .sort();

// Backups of the embedded database, made while the service runs and writes and restored into a stopped directory; its data moved to PostgreSQL.
(onRealServices ? describe.skip : describe)('npm run db:backup, db:restore, db:export, db:import', () => {
  const secrets = { JWT_SECRET: randomBytes(32).toString('hex'), WIDGET_SECRETS: randomBytes(32).toString('hex') };
  const env = (dataDir: string) => ({
    DATA_DIR: dataDir,
    BOOTSTRAP_OWNER_EMAIL: OWNER.email,
    BOOTSTRAP_OWNER_PASSWORD: OWNER.password,
    ...secrets,
  });
  const work = mkdtempSync(join(tmpdir(), 'gatehouse-backup-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const running = join(work, 'running');
  const restored = join(work, 'restored');
  const file = join(work, 'gatehouse.backup');

  it('backs up the running service under write load; the restored copy holds every write acknowledged before the backup began', async () => {
    const app = await AppProcess.start(env(running));
    const acknowledged: string[] = [];
    let before: string[];
    let stopped = false;
    const latencies: number[] = [];
    try {
      const token = await signInTo(app, OWNER);
      // Four clients creating API keys until the backup has ended.
      const writers = [0, 1, 2, 3].map(async (writer) => {
        for (let i = 0; !stopped; i++) {
          const name = `writer ${writer} key ${i}`;
          const started = performance.now();
          const { status } = await createKeyOn(app, token, name);
          latencies.push(performance.now() - started);
          if (status === 201) acknowledged.push(name);
          else if (status === 429)
            await sleep(1000); // the free plan's 120 writes a minute: refused, not a write
          else throw new Error(`${name}: ${status}`);
        }
      });
      await eventually(() => acknowledged.length >= 30, { timeoutMs: 30_000, intervalMs: 5 });
      before = [...acknowledged];
      const duringFrom = latencies.length;
      const backup = await cli('db-backup', [file], env(running));
      const during = latencies.slice(duringFrom);
      const writtenDuring = acknowledged.length - before.length;
      stopped = true;
      await Promise.all(writers);
      expect(backup).toEqual({ code: 0, out: expect.stringContaining(`from the running service (process ${app.pid};`) });
      expect(writtenDuring).toBeGreaterThan(0); // the writes went on while the copy was made
      await eventually(() => expect(existsSync(embeddedPaths(running).snapshot)).toBe(false)); // its disk space is given back
      console.log(
        `${backup.out.trim()}\nDuring the backup: ${during.length} requests answered (${writtenDuring} keys made), slowest ${Math.round(Math.max(...during))} ms`,
      );
    } finally {
      stopped = true;
      await app.stop();
    }

    expect(await cli('db-restore', [file], env(restored))).toEqual({
      code: 0,
      out: expect.stringContaining(`Restored ${file} into ${restored}`),
    });
    const copy = await AppProcess.start(env(restored));
    try {
      const names = await keyNamesOn(copy, await signInTo(copy, OWNER));
      expect(names).toEqual(expect.arrayContaining(before));
      // And the restored service takes writes of its own.
      expect((await createKeyOn(copy, await signInTo(copy, OWNER), 'after the restore')).status).toBe(201);
    } finally {
      await copy.stop();
    }
  }, 180_000);

  it('refuses to restore into a directory a running service holds, one holding a database (without --force), or from a file that is not a backup; nothing changes', async () => {
    // Its service, backup and restored copy are the test's above: without them this one has nothing to refuse.
    if (!existsSync(file) || !existsSync(embeddedPaths(restored).database)) {
      throw new Error(
        'Needs the backup and the restored copy of the test before, which did not finish: it failed (see that failure) or was not run.',
      );
    }
    const app = await AppProcess.start(env(running));
    try {
      const held = await cli('db-restore', [file, '--force'], env(running));
      expect(held.code).toBe(1);
      expect(held.out).toContain(
        `Not restored: stop the service first. The embedded database in ${running} is in use by process ${app.pid}`,
      );
      expect((await createKeyOn(app, await signInTo(app, OWNER), 'still serving')).status).toBe(201);
    } finally {
      await app.stop();
    }

    const before = snapshot(restored);
    const occupied = await cli('db-restore', [file], env(restored));
    expect(occupied).toEqual({ code: 1, out: expect.stringContaining(`${restored} holds a database already`) });
    expect(snapshot(restored)).toEqual(before);

    const cut = join(work, 'cut.backup');
    writeFileSync(cut, readFileSync(file).subarray(0, 200_000));
    const other = join(work, 'other.backup');
    writeFileSync(other, randomBytes(100_000));
    const empty = join(work, 'empty');
    for (const [bad, says] of [
      [cut, 'does not open as a database'],
      [other, 'not a Gatehouse backup'],
      [join(work, 'missing.backup'), 'cannot read'],
    ]) {
      expect(await cli('db-restore', [bad], env(empty))).toEqual({ code: 1, out: expect.stringContaining(says) });
      expect(existsSync(embeddedPaths(empty).database)).toBe(false);
    }
    // Into the occupied directory, even with --force: a bad file replaces nothing.
    expect((await cli('db-restore', [cut, '--force'], env(restored))).code).toBe(1);
    expect(snapshot(restored)).toEqual(before);

    // --force replaces the database with the backup's.
    expect(await cli('db-restore', [file, '--force'], env(restored))).toEqual({ code: 0, out: expect.stringContaining('Restored') });
  }, 180_000);

  it('points PostgreSQL deployments to pg_dump and pg_restore', async () => {
    const url = { DATABASE_URL: 'postgresql://gatehouse@127.0.0.1:5432/gatehouse' };
    expect(await cli('db-backup', [file], url)).toEqual({ code: 1, out: expect.stringContaining('back up PostgreSQL with pg_dump') });
    expect(await cli('db-restore', [file], url)).toEqual({ code: 1, out: expect.stringContaining('restore PostgreSQL with pg_restore') });
  });

  it('moves the embedded data to PostgreSQL: exported, imported, and the app on PostgreSQL signs in the same owner and takes the same keys', async () => {
    const moving = join(work, 'moving');
    const app = await AppProcess.start(env(moving));
    let key: string;
    let names: string[];
    try {
      const token = await signInTo(app, OWNER);
      key = await fetch(`${app.url}/api/v1/api-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ name: 'moves to PostgreSQL', scopes: ['public'] }),
      }).then(async (r) => ((await r.json()) as { key: string }).key);
      expect((await fetch(`${app.url}/api/v1/public/ping`, { headers: { 'x-api-key': key } })).status).toBe(200);
      names = await keyNamesOn(app, token);
    } finally {
      await app.stop();
    }
    const sql = join(work, 'gatehouse.sql');
    expect(await cli('db-export', [sql], env(moving))).toEqual({ code: 0, out: expect.stringContaining(`Wrote ${sql}`) });

    const psql = (command: string) => execFileSync('psql', ['-q', '-h', '127.0.0.1', '-U', 'postgres', '-d', 'test', '-c', command]);
    const name = `gatehouse_move_${randomUUID().replaceAll('-', '')}`;
    const url = `postgresql://postgres@127.0.0.1/${name}`;
    psql(`CREATE DATABASE ${name}`);
    try {
      execFileSync(join(ROOT, 'node_modules/.bin/prisma'), ['migrate', 'deploy'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: url },
        stdio: 'ignore',
      });
      expect(await cli('db-import', [sql], { DATABASE_URL: url })).toEqual({ code: 0, out: expect.stringContaining('Loaded') });
      // A second import finds the owner there and changes nothing.
      expect(await cli('db-import', [sql], { DATABASE_URL: url })).toEqual({
        code: 1,
        out: expect.stringContaining('holds 1 user(s) already'),
      });

      const { DATA_DIR: _dir, ...rest } = env(moving);
      const onPostgres = await AppProcess.start({ ...rest, DATABASE_URL: url });
      try {
        expect(await keyNamesOn(onPostgres, await signInTo(onPostgres, OWNER))).toEqual(names);
        expect((await fetch(`${onPostgres.url}/api/v1/public/ping`, { headers: { 'x-api-key': key } })).status).toBe(200);
        expect((await fetch(`${onPostgres.url}/api/v1/public/ping`, { headers: { 'x-api-key': `${key}x` } })).status).toBe(401);
      } finally {
        await onPostgres.stop();
      }
    } finally {
      psql(`DROP DATABASE ${name} WITH (FORCE)`);
    }
  }, 180_000);
});

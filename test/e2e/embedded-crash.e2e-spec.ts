import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { embeddedPaths } from '../../src/prisma/embedded-directory';
import { AppProcess, createKeyOn, keyNamesOn, signInTo } from '../utils/app-process';
import { eventually } from '../utils/eventually';
import { onRealServices } from '../utils/test-app';

const ROOT = resolve(__dirname, '../..');
const OWNER = { email: 'owner@example.com', password: 'a long enough password' };

/** True once a relation of the migrations has a file in the database being made at `dir`. */
const migrating = (dir: string) =>
  existsSync(join(dir, 'base', '1')) && readdirSync(join(dir, 'base', '1')).some((file) => Number.parseInt(file, 10) >= 16384);

// The embedded database on disk, in processes killed while they start and while they write.
(onRealServices ? describe.skip : describe)('embedded database on disk, killed', () => {
  const secrets = { JWT_SECRET: randomBytes(32).toString('hex'), WIDGET_SECRETS: randomBytes(32).toString('hex') };
  const env = (dataDir: string) => ({
    DATA_DIR: dataDir,
    BOOTSTRAP_OWNER_EMAIL: OWNER.email,
    BOOTSTRAP_OWNER_PASSWORD: OWNER.password,
    ...secrets,
  });
  const made: string[] = [];
  const newDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-killed-'));
    made.push(dir);
    return dir;
  };
  afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  // Made by the first test, written to by the next two.
  const dataDir = newDataDir();
  const { database, creating } = embeddedPaths(dataDir);

  it('a first start stopped at any moment (kill -9, Ctrl-C) leaves a directory the next start opens and serves from', async () => {
    // Where the database is made: in place (earlier versions) or beside it.
    const inEither = (found: (dir: string) => boolean) => () => found(database) || found(creating);
    const moments: Array<[NodeJS.Signals, () => boolean]> = [
      ['SIGKILL', inEither((dir) => existsSync(join(dir, 'PG_VERSION')))], // initdb begins
      ['SIGINT', inEither((dir) => existsSync(join(dir, 'base', '4')))], // initdb copies template1
      ['SIGKILL', inEither(migrating)], // the migrations run
      ['SIGKILL', () => existsSync(database)], // the new database opens
    ];
    for (const [signal, moment] of moments) {
      const app = await AppProcess.spawn(env(dataDir));
      await eventually(() => moment() || !app.running, { timeoutMs: 60_000, intervalMs: 5 });
      expect(await app.kill(signal)).toEqual({ code: null, signal }); // not ended by itself
    }
    const app = await AppProcess.start(env(dataDir));
    try {
      expect((await createKeyOn(app, await signInTo(app, OWNER), 'after the interrupted starts')).status).toBe(201);
      expect(existsSync(creating)).toBe(false);
    } finally {
      await app.stop();
    }
  }, 120_000);

  it('every acknowledged write survives kill -9 in mid-stream, round after round', async () => {
    const acknowledged: string[] = [];
    let token: string | undefined;
    for (let round = 0; round < 3; round++) {
      const app = await AppProcess.start(env(dataDir));
      token ??= await signInTo(app, OWNER);
      expect(await keyNamesOn(app, token)).toEqual(expect.arrayContaining(acknowledged));
      // Four clients writing until the process dies under them: some requests are in flight.
      let killed = false;
      const writers = [0, 1, 2, 3].map(async (writer) => {
        for (let i = 0; !killed; i++) {
          const name = `round ${round} writer ${writer} key ${i}`;
          const { status } = await createKeyOn(app, token!, name);
          if (status === 201) acknowledged.push(name);
          else if (!killed) throw new Error(`${name}: ${status}`);
        }
      });
      const target = acknowledged.length + 12 + 4 * round;
      await eventually(() => acknowledged.length >= target, { timeoutMs: 30_000, intervalMs: 1 });
      killed = true;
      expect(await app.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
      await Promise.all(writers);
    }
    const app = await AppProcess.start(env(dataDir));
    try {
      expect(await keyNamesOn(app, token!)).toEqual(expect.arrayContaining(acknowledged));
      expect(acknowledged.length).toBeGreaterThanOrEqual(12 + 16 + 20);
    } finally {
      await app.stop();
    }
  }, 120_000);

  it('refuses a second process on the same directory, saying which process has it; the first keeps serving', async () => {
    const first = await AppProcess.start(env(dataDir));
    try {
      const refused = await AppProcess.start(env(dataDir)).then(
        async (second) => `it started: ${JSON.stringify(await second.stop())}`,
        (err: Error) => err.message,
      );
      expect(refused).toContain('app exited with 1');
      expect(refused).toContain(`The embedded database in ${dataDir} is in use by process ${first.pid}`);
      expect((await createKeyOn(first, await signInTo(first, OWNER), 'while a second process was refused')).status).toBe(201);
    } finally {
      await first.stop();
    }
  }, 60_000);

  it('makes again a directory an earlier version left half made, and leaves one holding tables that does not open as it is', async () => {
    const legacy = newDataDir();
    const pglite = embeddedPaths(legacy).database;
    // What earlier versions did: PGlite's initdb in place, here killed early.
    const initdb = spawn(process.execPath, ['-e', `new (require('@electric-sql/pglite').PGlite)(${JSON.stringify(pglite)})`], {
      cwd: ROOT,
    });
    await eventually(() => existsSync(join(pglite, 'PG_VERSION')), { timeoutMs: 60_000, intervalMs: 5 });
    initdb.kill('SIGKILL');
    await once(initdb, 'exit');

    const app = await AppProcess.start(env(legacy));
    try {
      expect(app.log.join('\n')).toContain(`${pglite} was left half made by an interrupted first start`);
      expect((await createKeyOn(app, await signInTo(app, OWNER), 'on the database made again')).status).toBe(201);
    } finally {
      await app.stop();
    }

    rmSync(join(pglite, 'global', 'pg_control')); // PGlite aborts on such a directory
    const files = readdirSync(pglite, { recursive: true }).sort();
    const refused = await AppProcess.start(env(legacy)).then(
      async (started) => `it started: ${JSON.stringify(await started.stop())}`,
      (err: Error) => err.message,
    );
    expect(refused).toContain('app exited with 1');
    expect(refused).toContain(`The embedded database in ${pglite} does not open (`);
    expect(refused).toContain('It holds tables, so it is left as it is');
    expect(readdirSync(pglite, { recursive: true }).sort()).toEqual(files);
  }, 120_000);
});

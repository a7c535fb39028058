import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readdirSync } from 'node:fs';
import { freePort } from './private-redis';

const BIN = join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql').sort().at(-1) ?? '15', 'bin');

/** A PostgreSQL cluster of the test's own on a spare port, to stop mid-test (never the shared one). */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-pg-'));
    const pg = new PrivatePostgres(await freePort(), dir);
    const { uid, gid } = PrivatePostgres.postgresUser();
    chownSync(dir, uid, gid);
    pg.asPostgres('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
    pg.start();
    execFileSync('psql', [
      '-q',
      '-h',
      '127.0.0.1',
      '-p',
      String(pg.port),
      '-U',
      'postgres',
      '-d',
      'postgres',
      '-c',
      'CREATE DATABASE gatehouse',
    ]);
    return pg;
  }

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/gatehouse`;
  }

  /** `prisma migrate deploy`, as operators run it. */
  migrate(): void {
    execFileSync(resolve(__dirname, '../../node_modules/.bin/prisma'), ['migrate', 'deploy'], {
      cwd: resolve(__dirname, '../..'),
      env: { ...process.env, DATABASE_URL: this.url },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }

  start(): void {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -k ${this.dir} -c fsync=off`;
    this.asPostgres('pg_ctl', ['-D', join(this.dir, 'data'), '-o', options, '-l', join(this.dir, 'log'), '-w', 'start']);
  }

  /** As a crash would: no shutdown checkpoint, connections cut. Asynchronous, so requests stay in flight. */
  async stopImmediately(): Promise<void> {
    const [command, args] = this.asPostgresCommand('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']);
    await promisify(execFile)(command, args);
  }

  async destroy(): Promise<void> {
    await this.stopImmediately().catch(() => undefined); // already stopped
    rmSync(this.dir, { recursive: true, force: true });
  }

  private asPostgres(tool: string, args: string[]): void {
    const [command, all] = this.asPostgresCommand(tool, args);
    execFileSync(command, all, { stdio: 'ignore' });
  }

  /** initdb and pg_ctl refuse to run as root. */
  private asPostgresCommand(tool: string, args: string[]): [string, string[]] {
    const command = join(BIN, tool);
    return userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  }

  private static postgresUser(): { uid: number; gid: number } {
    if (userInfo().uid !== 0) return { uid: userInfo().uid, gid: userInfo().gid };
    const [uid, gid] = execFileSync('id', ['-u', 'postgres'])
      .toString()
      .trim()
      .split('\n')
      .concat(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid: Number(uid), gid: Number(gid) };
  }
}

import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { eventually } from './eventually';
import { logFileFor } from './log-scan';
import { freePort } from './private-redis';

const ROOT = resolve(__dirname, '../..');

/**
 * Written into dist/ by buildOnce, deleted by the global setup: Jest loads this module afresh for
 * each test file, so what was built in this run is recorded beside the build.
 */
export const BUILT_IN_THIS_RUN = resolve(ROOT, 'dist/.built-in-this-test-run');

/** `npm run build` once per test run: process tests run the build `npm run start:prod` runs (its node flags: scripts/smoke.sh). */
export function buildOnce(): void {
  if (existsSync(BUILT_IN_THIS_RUN)) return;
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  writeFileSync(BUILT_IN_THIS_RUN, '');
}

/** The built app (dist/main.js) as its own process, with its log kept for inspection. */
export class AppProcess {
  readonly log: string[] = [];

  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) =>
      this.log.push(
        ...chunk
          .toString()
          .split('\n')
          .filter((l) => l !== ''),
      );
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  /**
   * Started, not yet ready: for a test that stops it while it starts. `cwd`: the directory the app
   * runs in (relative paths such as the default DATA_DIR resolve there).
   */
  static async spawn(env: NodeJS.ProcessEnv, { cwd = ROOT }: { cwd?: string } = {}): Promise<AppProcess> {
    buildOnce();
    const port = await freePort();
    const child = spawn(process.execPath, [resolve(ROOT, 'dist/main.js')], {
      cwd,
      env: { ...process.env, LOG_REQUESTS: 'all', ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new AppProcess(port, child);
  }

  static async start(env: NodeJS.ProcessEnv, options: { cwd?: string } = {}): Promise<AppProcess> {
    const app = await AppProcess.spawn(env, options);
    const { child } = app;
    const ready = async () =>
      child.exitCode !== null ||
      (await fetch(`${app.url}/health/ready`).then(
        (r) => r.status,
        () => 0,
      )) === 200;
    // A first start runs initdb and the migrations: seconds, many more on a busy machine.
    const up = await eventually(ready, { timeoutMs: 60_000 }).catch(() => false);
    if (child.exitCode !== null) throw new Error(`app exited with ${child.exitCode}:\n${app.log.join('\n')}`);
    if (up) return app;
    child.kill('SIGKILL');
    throw new Error(`app did not become ready:\n${app.log.join('\n')}`);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * SIGTERM, and how it ended: Nest runs the shutdown hooks, then raises the signal again, so a
   * clean stop ends by SIGTERM (or exit code 0), a crash with another code.
   */
  stop(): Promise<{ code: number | null; signal: string | null }> {
    return this.kill('SIGTERM');
  }

  /** Sends `signal` (SIGKILL: no shutdown at all), and how the process ended; how it ended if it had. */
  async kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: string | null }> {
    if (this.running) {
      this.child.kill(signal);
      await once(this.child, 'exit');
      appendFileSync(logFileFor(`process-${this.port}`), this.log.join('\n') + '\n');
    }
    return { code: this.child.exitCode, signal: this.child.signalCode };
  }
}

/** Signs `who` in on a running process: the token (the answer must be 200). */
export async function signInTo(app: AppProcess, who: { email: string; password: string }): Promise<string> {
  const res = await fetch(`${app.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(who),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

/** POST /api/v1/api-keys on a running process: the status (0 when no answer came) and, on 201, the key. */
export const createKeyOn = (app: AppProcess, token: string, name: string): Promise<{ status: number; key?: string }> =>
  fetch(`${app.url}/api/v1/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ name }),
  }).then(
    async (r) => ({ status: r.status, key: r.status === 201 ? ((await r.json()) as { key: string }).key : undefined }),
    () => ({ status: 0 }),
  );

/** The names of the caller's account's API keys, from a running process. */
export async function keyNamesOn(app: AppProcess, token: string): Promise<string[]> {
  const res = await fetch(`${app.url}/api/v1/api-keys`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ name: string }> }).data.map((k) => k.name);
}

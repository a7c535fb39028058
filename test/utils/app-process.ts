import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { eventually } from './eventually';
import { logFileFor } from './log-scan';
import { freePort } from './private-redis';

const ROOT = resolve(__dirname, '../..');

/** `npm run build` once per test run: process tests run the build `npm run start:prod` runs (its node flags: scripts/smoke.sh). */
let built = false;
export function buildOnce(): void {
  if (built) return;
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  built = true;
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

  /** `cwd`: the directory the app runs in (relative paths such as the default DATA_DIR resolve there). */
  static async start(env: NodeJS.ProcessEnv, { cwd = ROOT }: { cwd?: string } = {}): Promise<AppProcess> {
    buildOnce();
    const port = await freePort();
    const child = spawn(process.execPath, [resolve(ROOT, 'dist/main.js')], {
      cwd,
      env: { ...process.env, LOG_REQUESTS: 'all', ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const app = new AppProcess(port, child);
    const ready = async () =>
      child.exitCode !== null ||
      (await fetch(`${app.url}/health/ready`).then(
        (r) => r.status,
        () => 0,
      )) === 200;
    const up = await eventually(ready, { timeoutMs: 20_000 }).catch(() => false);
    if (child.exitCode !== null) throw new Error(`app exited with ${child.exitCode}:\n${app.log.join('\n')}`);
    if (up) return app;
    child.kill('SIGKILL');
    throw new Error(`app did not become ready:\n${app.log.join('\n')}`);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * SIGTERM, and how it ended: Nest runs the shutdown hooks, then raises the signal again, so a
   * clean stop ends by SIGTERM (or exit code 0), a crash with another code.
   */
  async stop(): Promise<{ code: number | null; signal: string | null }> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return { code: this.child.exitCode, signal: this.child.signalCode };
    this.child.kill('SIGTERM');
    const [code, signal] = (await once(this.child, 'exit')) as [number | null, string | null];
    appendFileSync(logFileFor(`process-${this.port}`), this.log.join('\n') + '\n');
    return { code, signal };
  }
}

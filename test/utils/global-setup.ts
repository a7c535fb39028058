import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { BUILT_IN_THIS_RUN } from './app-process';
import { clearLogs } from './log-scan';

const ROOT = resolve(__dirname, '../..');

/**
 * On PostgreSQL (E2E_DATABASE_URL), migrate once with the real Prisma CLI, as operators do
 * (`npm run db:migrate`). The embedded default needs nothing: each app migrates its own PGlite.
 */
export default function globalSetup(): void {
  clearLogs();
  rmSync(BUILT_IN_THIS_RUN, { force: true }); // process tests build once in each run
  const url = process.env.E2E_DATABASE_URL;
  if (!url) return;
  execFileSync(resolve(ROOT, 'node_modules/.bin/prisma'), ['migrate', 'deploy'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

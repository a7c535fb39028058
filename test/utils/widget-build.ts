import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { WIDGET_SCRIPT_PATH } from '../../src/widget-script/widget-script';

const ROOT = resolve(__dirname, '../..');

/**
 * Builds the widget (`npm run build:widget`, well under a second) into dist/widget/gatehouse.js,
 * where the app serves it from: a test never runs against a stale build of widget/src.
 */
export function buildWidget(): string {
  execFileSync(process.execPath, [resolve(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '-c', 'widget/vite.config.mts'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return WIDGET_SCRIPT_PATH;
}

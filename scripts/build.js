'use strict';
// `npm start` builds with `node scripts/build.js`: only the steps whose inputs changed since they last
// ran here, so a restart with nothing changed starts at once. `npm run build` (CI, the Dockerfile, the
// process tests) passes --all and runs every step. Each step is an npm script; what it reads and what
// it writes are listed below (docs/DECISIONS.md, "npm start builds only what changed").
//
// dist/.build-inputs.json keeps, per step, a SHA-256 of its inputs' paths and contents and the mtime
// of its output. A step runs when that hash differs, when its output is missing or was rewritten by
// something else (a `vite build` by hand, a test), or when a step before it emptied dist/ (`nest
// build` does). A step's record is removed before it runs and written after it succeeds, so a failed
// or interrupted step runs again next time.
const { createHash } = require('node:crypto');
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');

const ROOT = resolve(__dirname, '..');
const RECORD = 'dist/.build-inputs.json';

/**
 * In build order. `inputs`: files and folders (all files under them) but those `ignore` matches;
 * `output`: one file the step writes.
 */
const STEPS = [
  {
    name: 'prisma',
    script: 'db:generate',
    inputs: ['prisma/schema.prisma', 'prisma.config.ts', 'package-lock.json'],
    output: 'src/generated/prisma/client.ts',
  },
  {
    // After prisma: src/generated is one of its inputs. nest-cli.json's deleteOutDir empties dist/.
    name: 'server',
    script: 'build:server',
    inputs: ['src', 'prisma', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json'],
    // Unit tests are not built (tsconfig.build.json's exclude): editing one changes nothing to start.
    ignore: /\.spec\.ts$/,
    output: 'dist/main.js',
    emptiesDist: true,
  },
  { name: 'widget', script: 'build:widget', inputs: ['widget', 'package-lock.json'], output: 'dist/widget/gatehouse.js' },
  {
    // The guide page bundles docs/PROTECT-A-FORM.md (dashboard/vite.config.mts, '@docs'); the sign-up
    // page reads a challenge's clock with the widget's own code.
    name: 'dashboard',
    script: 'build:dashboard',
    inputs: ['dashboard', 'docs/PROTECT-A-FORM.md', 'widget/src/challenge-clock.ts', 'package-lock.json'],
    output: 'dist/web/index.html',
  },
];

/** Every file under `path` (or `path` itself), relative to `root`, sorted. */
function filesOf(root, path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => filesOf(root, relative(root, join(full, entry.name))));
}

/** SHA-256 over the inputs' paths and contents: a renamed, added, removed or edited file changes it. */
function hashInputs(root, inputs, ignore) {
  const hash = createHash('sha256');
  for (const file of new Set(inputs.flatMap((input) => filesOf(root, input)))) {
    if (ignore?.test(file)) continue;
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

function outputMtime(root, step) {
  const out = join(root, step.output);
  return existsSync(out) ? statSync(out).mtimeMs : null;
}

function readRecord(root) {
  try {
    return JSON.parse(readFileSync(join(root, RECORD), 'utf8'));
  } catch {
    return {};
  }
}

function writeRecord(root, record) {
  mkdirSync(dirname(join(root, RECORD)), { recursive: true });
  writeFileSync(join(root, RECORD), `${JSON.stringify(record, null, 2)}\n`);
}

/** Why `step` must run, or null when its output is that of its current inputs. */
function reasonToRun(root, step, inputs, record, { all, distEmptied }) {
  if (all) return 'npm run build';
  if (distEmptied) return 'dist/ was emptied';
  const last = record[step.name];
  if (!last || last.inputs !== inputs) return 'inputs changed';
  const mtime = outputMtime(root, step);
  if (mtime === null) return `${step.output} is missing`;
  if (mtime !== last.outputMtime) return `${step.output} was rewritten since`;
  return null;
}

/** `npm run <script>` in `root`; throws when it fails. */
function runScript(root, script) {
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm, 'run', '--silent', script]] : ['npm', ['run', '--silent', script]];
  const { status, error } = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (error || status !== 0) throw new Error(`npm run ${script} failed${error ? `: ${error.message}` : ''}`);
}

/**
 * Runs the steps that must run, in order; returns their names. `run(step)` runs one (tests pass
 * their own); `log` gets one line per step.
 */
function build({ root = ROOT, all = false, steps = STEPS, run = (step) => runScript(root, step.script), log = console.error } = {}) {
  const record = readRecord(root);
  const ran = [];
  let distEmptied = false;
  for (const step of steps) {
    const inputs = hashInputs(root, step.inputs, step.ignore);
    const reason = reasonToRun(root, step, inputs, record, { all, distEmptied });
    if (reason === null) {
      log(`build: ${step.name} is up to date`);
      continue;
    }
    log(`build: ${step.name} (${reason})`);
    delete record[step.name];
    writeRecord(root, record);
    run(step);
    distEmptied ||= step.emptiesDist === true;
    record[step.name] = { inputs, outputMtime: outputMtime(root, step) };
    writeRecord(root, record);
    ran.push(step.name);
  }
  return ran;
}

module.exports = { STEPS, RECORD, build, hashInputs };

if (require.main === module) {
  try {
    build({ all: process.argv.includes('--all') });
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}

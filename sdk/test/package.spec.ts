import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { VERSION } from '../src/version';

const SDK = resolve(__dirname, '..');
const ROOT = resolve(SDK, '..');
const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);
const run = (file: string, args: string[], cwd: string) =>
  execFileSync(file, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

interface Manifest {
  name: string;
  version: string;
  license: string;
  dependencies?: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional: boolean }>;
  exports: Record<string, string | Record<string, Record<string, string>>>;
}

/**
 * What `npm publish` would ship: built by the package's own build (tsup), packed by npm, then
 * checked as consumers meet it: publint, Are the Types Wrong (node10, node16 CJS and ESM, bundler),
 * and every entry point imported from ESM and required from CommonJS by Node itself.
 */
describe('the @gatehouse/verify package', () => {
  let dir: string;
  let tarball: string;
  let files: string[];
  const manifest = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')) as Manifest;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-verify-pack-'));
    run(bin('tsup'), [], SDK);
    const [packed] = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], SDK)) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    tarball = join(dir, packed.filename);
    files = packed.files.map((f) => f.path).sort();
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ships dist with types, the README and the MIT licence, and nothing else', () => {
    expect(files.filter((f) => !f.startsWith('dist/'))).toEqual(['LICENSE', 'README.md', 'package.json']);
    expect(readFileSync(join(SDK, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(manifest.license).toBe('MIT');
    const targets = Object.values(manifest.exports).flatMap((e) =>
      typeof e === 'string' ? [e] : Object.values(e).flatMap((c) => Object.values(c)),
    );
    for (const target of targets) expect(files).toContain(target.replace(/^\.\//, ''));
    expect(files.filter((f) => f.endsWith('.d.ts')).length).toBeGreaterThanOrEqual(7);
    expect(files.filter((f) => f.endsWith('.d.cts')).length).toBeGreaterThanOrEqual(7);
  });

  it('has no runtime dependency; frameworks are optional peers', () => {
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(Object.keys(manifest.peerDependenciesMeta).sort());
    for (const meta of Object.values(manifest.peerDependenciesMeta)) expect(meta).toEqual({ optional: true });
  });

  it('reports its version in its User-Agent: the package’s', () => {
    expect(VERSION).toBe(manifest.version);
  });

  it('passes publint (strict)', () => {
    expect(run(bin('publint'), ['run', tarball, '--strict'], dir)).toContain('All good');
  });

  it('passes Are the Types Wrong for every entry point, from CommonJS and ESM', () => {
    const report = JSON.parse(run(bin('attw'), [tarball, '--no-definitely-typed', '--format', 'json'], dir)) as {
      analysis: { entrypoints: Record<string, unknown> };
      problems?: Record<string, unknown>;
    };
    expect(Object.keys(report.analysis.entrypoints).sort()).toEqual(Object.keys(manifest.exports).sort());
    expect(report.problems ?? {}).toEqual({}); // and attw exits non-zero on any problem, which throws above
  });

  it('loads in Node from ESM and CommonJS, one core shared by every entry point', () => {
    const app = join(dir, 'app');
    mkdirSync(join(app, 'node_modules/@gatehouse/verify'), { recursive: true });
    run('tar', ['-xzf', tarball, '-C', join(app, 'node_modules/@gatehouse/verify'), '--strip-components=1'], dir);
    for (const peer of [
      '@nestjs',
      'fastify',
      'hono',
      'express',
      'reflect-metadata',
      'rxjs',
      'tslib',
      'iterare',
      'uid',
      'file-type',
      'load-esm',
      '@lukeed',
    ])
      try {
        symlinkSync(join(ROOT, 'node_modules', peer), join(app, 'node_modules', peer));
      } catch {
        // not installed here: the entry point that needs it says so below
      }
    const check = (mod: string) => `
      const root = await load('@gatehouse/verify');
      const names = {};
      for (const sub of ['express', 'fastify', 'hono', 'nestjs', 'next', 'testing']) names[sub] = Object.keys(await load('@gatehouse/verify/' + sub)).sort();
      const fake = new (await load('@gatehouse/verify/testing')).FakeVerifier();
      const refused = await fake.verifyOrThrow('').catch((e) => e);
      const real = await new root.GatehouseVerifier({ apiKey: 'gh_test', baseUrl: 'http://127.0.0.1:9' }).verify('');
      console.log(JSON.stringify({ ${mod}, root: Object.keys(root).sort(), names, shared: refused instanceof root.GatehouseRefusedError, real: real.reason }));`;
    const esm = run('node', ['--input-type=module', '-e', `const load = (m) => import(m);${check("format: 'esm'")}`], app);
    const cjs = run('node', ['-e', `const load = async (m) => require(m); (async () => {${check("format: 'cjs'")}})();`], app);
    const expected = {
      root: ['GatehouseConfigurationError', 'GatehouseError', 'GatehouseRefusedError', 'GatehouseVerifier', 'MAX_NONCE_LENGTH', 'VERSION'],
      names: {
        express: ['DEFAULT_FIELD', 'gatehouse', 'problemFor'],
        fastify: ['DEFAULT_FIELD', 'gatehouse', 'problemFor'],
        hono: ['DEFAULT_FIELD', 'gatehouse', 'problemFor'],
        nestjs: ['DEFAULT_FIELD', 'GatehouseGuard', 'GatehouseVerdict', 'problemFor'],
        next: ['DEFAULT_FIELD', 'problemFor', 'verifyFormData', 'withGatehouse'],
        testing: ['FakeVerifier'],
      },
      shared: true,
      real: 'malformed',
    };
    expect(JSON.parse(esm)).toEqual({ format: 'esm', ...expected });
    expect(JSON.parse(cjs)).toEqual({ format: 'cjs', ...expected });
  });
});

import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

interface Step {
  name: string;
  output: string;
  emptiesDist?: boolean;
}
interface BuildModule {
  STEPS: Step[];
  build: (options: { root: string; all?: boolean; run: (step: Step) => void; log: (line: string) => void }) => string[];
}
const { STEPS, build } = require('./build') as BuildModule;

/**
 * scripts/build.js's decisions with its real steps and hashing, on a small tree laid out like the
 * repository; each step "runs" by writing its output (the server's first empties dist/, as `nest
 * build` does).
 */
describe('scripts/build.js: npm start builds only what changed', () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const run = (step: Step) => {
    if (step.emptiesDist) rmSync(join(root, 'dist'), { recursive: true, force: true });
    write(step.output, `built by ${step.name}`);
  };
  const start = () => build({ root, run, log: () => {} });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-build-'));
    write('prisma/schema.prisma', 'model User { id Int @id }');
    write('prisma/migrations/0001_init/migration.sql', 'CREATE TABLE "User" ();');
    write('prisma.config.ts', 'export default {};');
    write('package-lock.json', '{}');
    write('tsconfig.json', '{}');
    write('tsconfig.build.json', '{}');
    write('nest-cli.json', '{}');
    write('src/main.ts', 'bootstrap();');
    write('widget/src/gatehouse.ts', 'widget();');
    write('dashboard/src/main.tsx', 'render();');
    write('docs/PROTECT-A-FORM.md', '# Protect a form');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds every step the first time, then none while nothing changed', () => {
    expect(start()).toEqual(['prisma', 'server', 'widget', 'dashboard']);
    expect(start()).toEqual([]);
  });

  it('rebuilds only the dashboard when a dashboard file or the guide changes, not when a file is only touched', () => {
    start();
    utimesSync(join(root, 'dashboard/src/main.tsx'), new Date(), new Date(Date.now() + 60_000));
    expect(start()).toEqual([]);
    appendFileSync(join(root, 'dashboard/src/main.tsx'), '// edited');
    expect(start()).toEqual(['dashboard']);
    write('docs/PROTECT-A-FORM.md', '# Protect a form, edited');
    expect(start()).toEqual(['dashboard']);
  });

  it('a server change rebuilds the steps after it, whose output nest build deletes', () => {
    start();
    write('src/new-module.ts', 'export {};');
    expect(start()).toEqual(['server', 'widget', 'dashboard']);
    rmSync(join(root, 'src/new-module.ts'));
    expect(start()).toEqual(['server', 'widget', 'dashboard']);
  });

  it('a unit test, which the server build leaves out, changes nothing to build', () => {
    start();
    write('src/main.spec.ts', "it('starts', () => {});");
    expect(start()).toEqual([]);
    appendFileSync(join(root, 'src/main.spec.ts'), '// edited');
    expect(start()).toEqual([]);
  });

  it('a schema change runs prisma generate and the server build; a missing generated client runs prisma generate', () => {
    start();
    write('prisma/schema.prisma', 'model User { id Int @id\n email String }');
    expect(start()).toEqual(['prisma', 'server', 'widget', 'dashboard']);
    // Generated again as it was: the server build of that client is still current.
    rmSync(join(root, 'src/generated'), { recursive: true });
    expect(start()).toEqual(['prisma']);
  });

  it('a deleted dist/, or an output rewritten by something else, is rebuilt', () => {
    start();
    rmSync(join(root, 'dist'), { recursive: true });
    expect(start()).toEqual(['prisma', 'server', 'widget', 'dashboard']);
    const widget = STEPS.find((s) => s.name === 'widget')!;
    utimesSync(join(root, widget.output), new Date(), new Date(Date.now() + 60_000));
    expect(start()).toEqual(['widget']);
  });

  it('a step that failed runs again next time', () => {
    start();
    appendFileSync(join(root, 'widget/src/gatehouse.ts'), '// broken');
    const failing = (step: Step) => {
      if (step.name === 'widget') throw new Error('vite build failed');
      run(step);
    };
    expect(() => build({ root, run: failing, log: () => {} })).toThrow('vite build failed');
    expect(start()).toEqual(['widget']);
  });

  it('npm run build (--all) runs every step', () => {
    start();
    expect(build({ root, all: true, run, log: () => {} })).toEqual(['prisma', 'server', 'widget', 'dashboard']);
  });
});

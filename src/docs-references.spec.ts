import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * Comments and API descriptions cite the docs as `docs/X.md, "Section"`. Every such reference in
 * src/ and dashboard/src/ must name a file of this repository and, when it names a section, a
 * heading of that file: a renamed heading or a moved file fails here, not in a reader's hands. The
 * same holds for the source files they name from the repository's root (`src/x.ts`).
 */
const ROOT = resolve(__dirname, '..');
const SCANNED = ['src', 'dashboard/src'];
/** The generated client, and this file, whose examples are not references. */
const SKIPPED = new Set([join(ROOT, 'src/generated'), __filename]);

interface Reference {
  readonly from: string;
  readonly file: string;
  readonly section?: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (SKIPPED.has(path)) return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|js|css|html)$/.test(name) ? [path] : [];
  });
}

/** Comment lines joined into one, so a reference broken across lines reads as written. */
const unwrapped = (text: string): string => text.replace(/\n[ \t]*(?:\*(?!\/)|\/\/)?[ \t]*/g, ' ');

/** `X.md`, `docs/X.md`, `../x/X.md`, optionally followed by `, "Section"` (or `"Section"`). */
const REFERENCE = /((?:\.{1,2}\/|[\w-]+\/)*[\w-]+\.md)\b(?:,? ?["“]([^"”]+)["”])?/g;

function referencesIn(path: string): Reference[] {
  const from = relative(ROOT, path);
  return [...unwrapped(readFileSync(path, 'utf8')).matchAll(REFERENCE)].map(([, file, section]) => ({ from, file, section }));
}

/** The headings of a Markdown file, outside code blocks, as written after the #s. */
function headingsOf(path: string): Set<string> {
  let inCode = false;
  const headings = new Set<string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = inCode ? null : /^#{1,6}\s+(.+?)\s*#*$/.exec(line);
    if (heading !== null) headings.add(heading[1]);
  }
  return headings;
}

/** What is wrong with a reference, or undefined when it resolves. */
function problemWith(ref: Reference): string | undefined {
  const target = resolve(ROOT, ref.file);
  if (relative(ROOT, target).startsWith('..')) return `${ref.from}: ${ref.file} is outside the repository`;
  if (!existsSync(target)) return `${ref.from}: ${ref.file} does not exist`;
  if (ref.section !== undefined && !headingsOf(target).has(ref.section)) return `${ref.from}: ${ref.file} has no heading "${ref.section}"`;
  return undefined;
}

const scanned = SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir)));
const references = scanned.flatMap(referencesIn);

/** A source file named from the repository's root: `src/x.ts`, `dashboard/src/x.tsx`, `test/e2e/x.e2e-spec.ts`. */
const SOURCE_REFERENCE = /(?<![\w./-])((?:src|dashboard\/src|widget\/src|test|scripts|bench)\/[\w./-]+\.tsx?)\b/g;

const sourceReferences = scanned.flatMap((path) =>
  [...unwrapped(readFileSync(path, 'utf8')).matchAll(SOURCE_REFERENCE)].map(([, file]) => ({ from: relative(ROOT, path), file })),
);

describe('references to the docs from the code', () => {
  it('are found (the scan reads the comments it checks)', () => {
    expect(references.length).toBeGreaterThan(20);
    expect(references).toContainEqual({
      from: 'src/app.setup.ts',
      file: 'docs/PERFORMANCE.md',
      section: 'Request log lines only for errors',
    });
  });

  it('each name a file of the repository and, when they name a section, one of its headings', () => {
    expect(references.map(problemWith).filter((p) => p !== undefined)).toEqual([]);
  });

  it('are checked: a missing file, a missing heading and a file outside the repository are reported', () => {
    expect(problemWith({ from: 'x.ts', file: 'docs/NOWHERE.md' })).toMatch(/does not exist/);
    expect(problemWith({ from: 'x.ts', file: 'docs/API.md', section: 'No such section' })).toMatch(/no heading/);
    expect(problemWith({ from: 'x.ts', file: '../shared/PRODUCT.md' })).toMatch(/outside the repository/);
    expect(problemWith({ from: 'x.ts', file: 'PRODUCT.md' })).toMatch(/does not exist/);
    expect(problemWith({ from: 'x.ts', file: 'docs/API.md', section: 'Errors' })).toBeUndefined();
  });

  it('are read as written across comment lines, with or without the comma', () => {
    const text = ' * as measured (docs/DECISIONS.md, "Memory\n * footprint") and docs/API.md "Errors".';
    expect([...unwrapped(text).matchAll(REFERENCE)].map(([, file, section]) => [file, section])).toEqual([
      ['docs/DECISIONS.md', 'Memory footprint'],
      ['docs/API.md', 'Errors'],
    ]);
  });
});

describe('references to source files from the code', () => {
  it('are found', () => {
    expect(sourceReferences).toContainEqual({ from: 'src/http/http.module.ts', file: 'src/app.setup.ts' });
    expect(sourceReferences).toContainEqual({ from: 'dashboard/src/widget.ts', file: 'widget/src/gatehouse.ts' });
  });

  it('each name a file of the repository', () => {
    const missing = sourceReferences.filter((r) => !existsSync(join(ROOT, r.file))).map((r) => `${r.from}: ${r.file} does not exist`);
    expect(missing).toEqual([]);
  });
});

import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { BuiltFile, chooseEncoding, matchesEtag } from './built-file';

describe('BuiltFile', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'widget-script-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('has no version while the file is missing, and one as soon as it is there', () => {
    const script = new BuiltFile(join(dir, 'gatehouse.js'));
    expect(script.current()).toBeUndefined();
    writeFileSync(script.path, 'console.log(1);');
    const version = script.current()!;
    expect(version.bodies.identity.toString()).toBe('console.log(1);');
    expect(gunzipSync(version.bodies.gzip).toString()).toBe('console.log(1);');
    expect(version.etag).toMatch(/^W\/"[\w-]{27}"$/);
  });

  it('reads a file once per build, and again when a build changed it', () => {
    const script = new BuiltFile(join(dir, 'gatehouse.js'));
    writeFileSync(script.path, 'console.log(1);');
    const first = script.current()!;
    expect(script.current()).toBe(first);
    writeFileSync(script.path, 'console.log(22);');
    utimesSync(script.path, new Date(), new Date(Date.now() + 5000));
    const second = script.current()!;
    expect(second.etag).not.toBe(first.etag);
    expect(second.bodies.identity.toString()).toBe('console.log(22);');
  });
});

describe('chooseEncoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip, deflate, br', 'br'],
    ['gzip, deflate', 'gzip'],
    ['br;q=0, gzip;q=0.5', 'gzip'],
    ['gzip;q=0', 'identity'],
    ['*', 'gzip'],
    ['deflate', 'identity'],
  ])('%j → %s', (header, encoding) => expect(chooseEncoding(header)).toBe(encoding));
});

describe('matchesEtag', () => {
  const etag = 'W/"abc"';
  it.each([
    [undefined, false],
    ['W/"abc"', true],
    ['"abc"', true],
    ['"x", W/"abc"', true],
    ['"abcd"', false],
    ['*', true],
  ])('%j → %s', (header, match) => expect(matchesEtag(header, etag)).toBe(match));
});

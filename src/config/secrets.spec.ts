import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './app-config';
import { resolveJwtSecret, resolveWidgetSecrets } from './secrets';

describe('resolveJwtSecret', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-jwt-'));
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('uses JWT_SECRET when it is set and writes nothing', () => {
    const config = loadConfig({ JWT_SECRET: 'from-the-environment', DATA_DIR: dir });
    expect(resolveJwtSecret(config)).toBe('from-the-environment');
    expect(() => statSync(join(dir, 'jwt-secret'))).toThrow();
  });

  it('generates a long secret into DATA_DIR/jwt-secret readable only by its owner', () => {
    const secret = resolveJwtSecret(loadConfig({ DATA_DIR: dir }));
    const file = join(dir, 'jwt-secret');
    expect(readFileSync(file, 'utf8')).toBe(secret);
    expect(Buffer.byteLength(secret)).toBeGreaterThanOrEqual(32);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('returns the same secret on the next start', () => {
    const config = loadConfig({ DATA_DIR: dir });
    const first = resolveJwtSecret(config);
    expect(resolveJwtSecret(config)).toBe(first);
    expect(resolveJwtSecret(loadConfig({ DATA_DIR: dir }))).toBe(first);
  });

  it('creates a DATA_DIR that does not exist yet', () => {
    const nested = join(dir, 'a', 'b');
    const secret = resolveJwtSecret(loadConfig({ DATA_DIR: nested }));
    expect(readFileSync(join(nested, 'jwt-secret'), 'utf8')).toBe(secret);
  });

  it('gives separate data directories separate secrets', () => {
    const other = mkdtempSync(join(tmpdir(), 'gatehouse-jwt-'));
    try {
      expect(resolveJwtSecret(loadConfig({ DATA_DIR: dir }))).not.toBe(resolveJwtSecret(loadConfig({ DATA_DIR: other })));
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('never signs tokens with an empty secret left by an interrupted write', () => {
    writeFileSync(join(dir, 'jwt-secret'), '', { mode: 0o600 });
    expect(resolveJwtSecret(loadConfig({ DATA_DIR: dir })).length).toBeGreaterThanOrEqual(32);
  });
});

describe('generated secrets with DATA_DIR=memory://', () => {
  let cwd: string;
  let dir: string;

  beforeEach(() => {
    cwd = process.cwd();
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-memory-'));
    process.chdir(dir);
  });

  afterEach(() => {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  });

  it('are kept for the configuration they were made for and written nowhere', () => {
    const config = loadConfig({ DATA_DIR: 'memory://' });
    const jwt = resolveJwtSecret(config);
    const [widget] = resolveWidgetSecrets(config);
    expect(Buffer.byteLength(jwt)).toBeGreaterThanOrEqual(32);
    expect(Buffer.byteLength(widget)).toBeGreaterThanOrEqual(32);
    expect(widget).not.toBe(jwt);
    expect(resolveJwtSecret(config)).toBe(jwt);
    expect(resolveWidgetSecrets(config)).toEqual([widget]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('are new for every in-memory instance', () => {
    const first = loadConfig({ DATA_DIR: 'memory://' });
    const second = loadConfig({ DATA_DIR: 'memory://' });
    expect(resolveJwtSecret(second)).not.toBe(resolveJwtSecret(first));
    expect(resolveWidgetSecrets(second)).not.toEqual(resolveWidgetSecrets(first));
  });
});

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './app-config';
import { resolveJwtSecret } from './secrets';

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

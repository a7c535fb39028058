import { ConfigError, loadConfig } from '../config/app-config';
import { keyAllowsOrigin, normalizeOrigin } from './origins';

describe(normalizeOrigin.name, () => {
  it.each([
    ['https://Shop.Example.com', 'https://shop.example.com'],
    ['https://shop.example.com:443', 'https://shop.example.com'],
    ['http://localhost:8080', 'http://localhost:8080'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
  ])('serialises %s as %s', (value, origin) => expect(normalizeOrigin(value)).toBe(origin));

  it.each(['null', 'ftp://x.example', 'https://x.example/path', 'https://x.example?q', 'https://u:p@x.example', 'x.example', ''])(
    'refuses %j',
    (value) => expect(normalizeOrigin(value)).toBeUndefined(),
  );
});

describe(keyAllowsOrigin.name, () => {
  const none = new Set<string>();

  it('allows any origin with an empty list, and calls without Origin', () => {
    expect(keyAllowsOrigin([], 'https://any.example', none)).toBe(true);
    expect(keyAllowsOrigin(['https://shop.example.com'], undefined, none)).toBe(true);
  });

  it('allows only listed origins otherwise', () => {
    const list = ['https://shop.example.com:443'];
    expect(keyAllowsOrigin(list, 'https://shop.example.com', none)).toBe(true);
    expect(keyAllowsOrigin(list, 'http://shop.example.com', none)).toBe(false);
    expect(keyAllowsOrigin(list, 'null', none)).toBe(false);
  });

  it("allows Gatehouse's own origins for every key", () => {
    const own = new Set(['https://gatehouse.example.com']);
    expect(keyAllowsOrigin(['https://shop.example.com'], 'https://Gatehouse.example.com:443', own)).toBe(true);
    expect(keyAllowsOrigin(['https://shop.example.com'], 'https://evil.example', own)).toBe(false);
  });
});

describe('serviceOrigins', () => {
  it("is PUBLIC_URL's origin (default http://localhost:PORT) and DASHBOARD_ORIGINS", () => {
    expect(loadConfig({}).serviceOrigins).toEqual(['http://localhost:3000']);
    expect(
      loadConfig({ PUBLIC_URL: 'https://Gatehouse.example.com/', DASHBOARD_ORIGINS: 'https://dash.example.com' }).serviceOrigins,
    ).toEqual(['https://gatehouse.example.com', 'https://dash.example.com']);
  });
});

describe('DASHBOARD_ORIGINS', () => {
  it('is empty by default and read as a comma-separated list of origins', () => {
    expect(loadConfig({}).dashboardOrigins).toEqual([]);
    expect(loadConfig({ DASHBOARD_ORIGINS: ' https://Dash.example.com , http://localhost:5173,' }).dashboardOrigins).toEqual([
      'https://dash.example.com',
      'http://localhost:5173',
    ]);
  });

  it('refuses a value that is not an origin', () => {
    expect(() => loadConfig({ DASHBOARD_ORIGINS: 'https://dash.example.com/app' })).toThrow(ConfigError);
    expect(() => loadConfig({ DASHBOARD_ORIGINS: '*' })).toThrow(ConfigError);
  });
});

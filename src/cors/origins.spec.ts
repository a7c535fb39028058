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
  it('allows any origin with an empty list, and calls without Origin', () => {
    expect(keyAllowsOrigin([], 'https://any.example')).toBe(true);
    expect(keyAllowsOrigin(['https://shop.example.com'], undefined)).toBe(true);
  });

  it('allows only listed origins otherwise', () => {
    const list = ['https://shop.example.com:443'];
    expect(keyAllowsOrigin(list, 'https://shop.example.com')).toBe(true);
    expect(keyAllowsOrigin(list, 'http://shop.example.com')).toBe(false);
    expect(keyAllowsOrigin(list, 'null')).toBe(false);
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

import { ConfigError, loadConfig } from './app-config';

const STRONG_SECRET = 'N7q2vR9kLm4pW8sT1xY6zB3cD5fG0hJ2aK9eQ4uV7wZ';

describe('loadConfig', () => {
  it('runs with the documented defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config.env).toBe('development');
    expect(config.port).toBe(3000);
    expect(config.listenAddress).toBe('0.0.0.0');
    expect(config.dataDir).toBe('./data');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.redis).toBeUndefined();
    expect(config.jwt.secret).toBeUndefined();
    expect(config.jwt.expiresIn).toBe(86400);
    expect(config.bootstrapOwner).toBeUndefined();
    expect(config.limits.anonymousPerMinute).toBe(30);
  });

  it('makes the session cookie Secure except for a plain-http PUBLIC_URL on localhost or 127.0.0.1', () => {
    const secure = (PUBLIC_URL?: string) => loadConfig(PUBLIC_URL === undefined ? {} : { PUBLIC_URL }).secureCookies;
    expect(secure()).toBe(false); // http://localhost:3000
    expect(secure('http://127.0.0.1:8080')).toBe(false);
    expect(secure('https://localhost:3000')).toBe(true);
    expect(secure('https://gatehouse.example.com')).toBe(true);
    expect(secure('http://gatehouse.example.com')).toBe(true);
    expect(secure('http://localhost.example.com')).toBe(true);
  });

  it('reads numbers and URLs from the environment', () => {
    const config = loadConfig({
      PORT: '8080',
      LISTEN_ADDRESS: '127.0.0.1',
      JWT_EXPIRES_IN: '3600',
      DATABASE_URL: 'postgresql://u@db/gh',
      REDIS_URL: 'rediss://cache:6380',
      DATA_DIR: '/var/lib/gh',
    });
    expect(config.port).toBe(8080);
    expect(config.listenAddress).toBe('127.0.0.1');
    expect(loadConfig({ LISTEN_ADDRESS: '::' }).listenAddress).toBe('::');
    expect(config.jwt.expiresIn).toBe(3600);
    expect(config.databaseUrl).toBe('postgresql://u@db/gh');
    expect(config.redis).toEqual({ url: 'rediss://cache:6380', cluster: false });
    expect(loadConfig({ REDIS_URL: 'redis://node-1:7000', REDIS_CLUSTER: 'true' }).redis).toEqual({
      url: 'redis://node-1:7000',
      cluster: true,
    });
    expect(config.dataDir).toBe('/var/lib/gh');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['LISTEN_ADDRESS', 'localhost'],
    ['LISTEN_ADDRESS', '127.0.0.1:3000'],
    ['JWT_EXPIRES_IN', '10'],
    ['JWT_EXPIRES_IN', 'soon'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'http://cache'],
    ['NODE_ENV', 'staging'],
    ['METRICS_TOKEN', 'too-short'],
    ['METRICS_PORT', 'abc'],
    ['METRICS_PORT', '0'],
    ['METRICS_PORT', '70000'],
    ['PUBLIC_URL', 'gatehouse.example.com'],
    ['PUBLIC_URL', 'https://example.com/gatehouse'],
  ])('refuses %s=%s with a ConfigError naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name === 'NODE_ENV' ? /NODE_ENV/ : new RegExp(name));
  });

  it('turns metrics on with METRICS_TOKEN and/or METRICS_PORT, on a port other than PORT', () => {
    expect(loadConfig({}).metrics).toEqual({ token: undefined, port: undefined });
    expect(loadConfig({ METRICS_TOKEN: 'a-scraper-token-0123', METRICS_PORT: '9464' }).metrics).toEqual({
      token: 'a-scraper-token-0123',
      port: 9464,
    });
    expect(() => loadConfig({ METRICS_PORT: '3000' })).toThrow(/METRICS_PORT must differ from PORT/);
  });

  it('treats an empty PORT or JWT_EXPIRES_IN like an unset one', () => {
    const config = loadConfig({ PORT: '', JWT_EXPIRES_IN: '' });
    expect(config.port).toBe(3000);
    expect(config.jwt.expiresIn).toBe(86400);
  });

  describe('in production', () => {
    const prod = (extra: Record<string, string> = {}) =>
      loadConfig({ NODE_ENV: 'production', WIDGET_SECRETS: `w${STRONG_SECRET}`, MFA_ENCRYPTION_KEY: `m${STRONG_SECRET}`, ...extra });

    it('requires MFA_ENCRYPTION_KEY, strong', () => {
      expect(() => prod({ JWT_SECRET: STRONG_SECRET, MFA_ENCRYPTION_KEY: '' })).toThrow(/MFA_ENCRYPTION_KEY is required/);
      expect(() => prod({ JWT_SECRET: STRONG_SECRET, MFA_ENCRYPTION_KEY: 'short' })).toThrow(
        /MFA_ENCRYPTION_KEY must be at least 32 bytes/,
      );
      expect(() => prod({ JWT_SECRET: STRONG_SECRET, MFA_ENCRYPTION_KEY: 'changeme-changeme-changeme-changeme' })).toThrow(/placeholder/);
      expect(prod({ JWT_SECRET: STRONG_SECRET }).mfa.encryptionKey).toBe(`m${STRONG_SECRET}`);
    });

    it('requires JWT_SECRET', () => {
      expect(() => prod()).toThrow(ConfigError);
      expect(() => prod()).toThrow(/JWT_SECRET is required/);
      expect(() => prod({ JWT_SECRET: '' })).toThrow(/JWT_SECRET is required/);
    });

    it('requires WIDGET_SECRETS, each strong, and keeps their order (the first signs)', () => {
      expect(() => prod({ JWT_SECRET: STRONG_SECRET, WIDGET_SECRETS: '' })).toThrow(/WIDGET_SECRETS is required/);
      expect(() => prod({ JWT_SECRET: STRONG_SECRET, WIDGET_SECRETS: `${STRONG_SECRET},short` })).toThrow(/WIDGET_SECRETS/);
      expect(() => prod({ JWT_SECRET: STRONG_SECRET, WIDGET_SECRETS: 'changeme-changeme-changeme-changeme' })).toThrow(/placeholder/);
      const rotated = prod({ JWT_SECRET: STRONG_SECRET, WIDGET_SECRETS: ` new${STRONG_SECRET} , old${STRONG_SECRET} ` });
      expect(rotated.widget.secrets).toEqual([`new${STRONG_SECRET}`, `old${STRONG_SECRET}`]);
    });

    it('accepts a strong secret', () => {
      expect(prod({ JWT_SECRET: STRONG_SECRET }).jwt.secret).toBe(STRONG_SECRET);
    });

    it('refuses a secret shorter than 32 bytes', () => {
      expect(() => prod({ JWT_SECRET: STRONG_SECRET.slice(0, 31) })).toThrow(/at least 32 bytes/);
      expect(prod({ JWT_SECRET: STRONG_SECRET.slice(0, 32) }).jwt.secret).toHaveLength(32);
    });

    it.each([
      'changeme-changeme-changeme-changeme',
      'change_me_in_production_please_now!',
      'secretsecretsecretsecretsecretsecret',
      'x'.repeat(40),
      '0'.repeat(48),
      'your-secret-goes-here-0123456789abcdef',
    ])('refuses the placeholder secret %s even though it is long enough', (secret) => {
      expect(() => prod({ JWT_SECRET: secret })).toThrow(/placeholder/);
    });

    it('accepts random secrets that merely start with x or 0', () => {
      // secret beginning with x, X or 0 — about 1 in 21 outputs of `openssl rand -base64 48`.
      for (const secret of [`x${STRONG_SECRET}`, `X${STRONG_SECRET}`, `0${STRONG_SECRET}`]) {
        expect(prod({ JWT_SECRET: secret }).jwt.secret).toBe(secret);
      }
    });
  });

  it('does not apply the production secret rules in development', () => {
    expect(loadConfig({ JWT_SECRET: 'changeme' }).jwt.secret).toBe('changeme');
  });

  it('requires the bootstrap owner email and password together', () => {
    expect(() => loadConfig({ BOOTSTRAP_OWNER_EMAIL: 'owner@example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ BOOTSTRAP_OWNER_PASSWORD: 'correct horse battery' })).toThrow(/go together/);
    const config = loadConfig({ BOOTSTRAP_OWNER_EMAIL: 'owner@example.com', BOOTSTRAP_OWNER_PASSWORD: 'correct horse battery' });
    expect(config.bootstrapOwner).toEqual({ email: 'owner@example.com', password: 'correct horse battery' });
  });
});

import { plainToInstance, Transform } from 'class-transformer';
import { IsIn, IsInt, IsIP, IsOptional, IsString, Matches, Max, Min, MinLength, validateSync } from 'class-validator';
import type { RedisTarget } from '../common/redis-client';
import { normalizeOrigin } from '../cors/origins';

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);

/** The environment variables Gatehouse reads (README, "Configuration"), validated once at start. */
class EnvironmentVariables {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: string = 'development';

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL?: string;

  /** true: REDIS_URL names one node of a Redis (or Valkey) Cluster. */
  @IsIn(['true', 'false'])
  REDIS_CLUSTER: string = 'false';

  @IsString()
  @Matches(/^[A-Za-z0-9:_.-]{1,64}$/, { message: 'REDIS_KEY_PREFIX must be 1-64 characters of A-Z a-z 0-9 : _ . -' })
  REDIS_KEY_PREFIX: string = 'gatehouse:';

  @IsOptional()
  @IsString()
  JWT_SECRET?: string;

  /** Comma-separated; the first signs widget challenges, every one verifies (rotation). */
  @IsOptional()
  @IsString()
  WIDGET_SECRETS?: string;

  /** Encrypts TOTP secrets at rest and keys the recovery codes' hashes. */
  @IsOptional()
  @IsString()
  MFA_ENCRYPTION_KEY?: string;

  @Transform(toInt)
  @IsInt()
  @Min(60)
  @Max(30 * 86400)
  JWT_EXPIRES_IN: number = 86400;

  @IsString()
  @MinLength(1)
  JWT_ISSUER: string = 'gatehouse';

  @IsString()
  @MinLength(1)
  JWT_AUDIENCE: string = 'gatehouse-dashboard';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  /**
   * The address Gatehouse listens on (and METRICS_PORT's listener too): every IPv4 interface by
   * default, as a container needs; 127.0.0.1 keeps it to this machine (behind a proxy on the same
   * host, or a laptop on a shared network). An address, not a name: `localhost` may resolve to ::1
   * alone, which 127.0.0.1 clients cannot reach.
   */
  @IsIP(undefined, {
    message:
      'LISTEN_ADDRESS must be an IP address to listen on: 0.0.0.0 (every IPv4 interface), :: (every interface) or 127.0.0.1 (this machine only)',
  })
  LISTEN_ADDRESS: string = '0.0.0.0';

  @IsString()
  @MinLength(1)
  DATA_DIR: string = './data';

  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  USAGE_FLUSH_INTERVAL_MS: number = 5000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(120_000)
  SHUTDOWN_DRAIN_MS: number = 0;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  @IsOptional()
  @IsString()
  @MinLength(1)
  LOG_FILE?: string;

  @IsIn(['all', 'errors', 'none'])
  LOG_REQUESTS: string = 'errors';

  @IsOptional()
  @Matches(/^(true|\d{1,2}|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$/, {
    message: 'TRUST_PROXY must be true, a hop count, or a comma-separated list of proxy addresses/CIDRs',
  })
  TRUST_PROXY?: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  WIDGET_VISITOR_PER_MINUTE: number = 30;

  /** Unset: no e-mail; invitation and reset tokens are answered to the OWNER/ADMIN who asked. */
  @IsOptional()
  @Matches(/^smtps?:\/\//, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsString()
  @MinLength(3)
  MAIL_FROM: string = 'Gatehouse <gatehouse@localhost>';

  /**
   * Where people reach Gatehouse: links in e-mails start with it. Default: http://localhost:PORT. An
   * origin without a path: the dashboard loads its scripts and calls the API from the root of its host,
   * so behind a path prefix its pages and the e-mailed links would not work.
   */
  @IsOptional()
  @Matches(/^https?:\/\/[^/?#]+\/?$/, {
    message:
      'PUBLIC_URL must be the http(s) origin Gatehouse is opened at, without a path, such as https://gatehouse.example.com (Gatehouse is served at the root of its host)',
  })
  PUBLIC_URL?: string;

  @IsIn(['open', 'closed'])
  SIGNUP: string = 'closed';

  @IsIn(['on', 'off'])
  USAGE_RECORDING: string = 'on';

  /** true: webhooks may go to private, loopback and link-local addresses, and over http (tests, private networks). */
  @IsIn(['true', 'false'])
  WEBHOOK_ALLOW_PRIVATE: string = 'false';

  /** Comma-separated browser origins of the dashboard; unset: no browser origin may call JWT routes. */
  @IsOptional()
  @IsString()
  DASHBOARD_ORIGINS?: string;

  /** Set: GET /metrics on the main port answers to `Authorization: Bearer <it>`. */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN?: string;

  /** Set: GET /metrics on this port, without auth (a private network's scraper). */
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'METRICS_PORT must be a port number' })
  @Min(1)
  @Max(65535)
  METRICS_PORT?: number;

  @IsOptional()
  @IsString()
  BOOTSTRAP_OWNER_EMAIL?: string;

  @IsOptional()
  @IsString()
  BOOTSTRAP_OWNER_PASSWORD?: string;
}

/** DATA_DIR=memory:// keeps the embedded database and generated secrets in process memory: nothing is written. */
export const IN_MEMORY = 'memory://';

export interface AppConfig {
  readonly env: 'development' | 'production' | 'test';
  readonly port: number;
  /** The address the HTTP listeners bind (LISTEN_ADDRESS). */
  readonly listenAddress: string;
  readonly dataDir: string;
  /** Unset: embedded PGlite under dataDir. */
  readonly databaseUrl?: string;
  /** Unset: in-process rate-limit storage. */
  readonly redis?: RedisTarget;
  /** Every Redis key starts with it, so instances of one deployment share and others do not. */
  readonly redisKeyPrefix: string;
  readonly jwt: {
    /** Unset outside production: generated once and kept in dataDir (resolveJwtSecret in config/secrets.ts); only in this process with DATA_DIR=memory://. */
    readonly secret?: string;
    readonly expiresIn: number;
    readonly issuer: string;
    readonly audience: string;
  };
  readonly widget: {
    /** Empty outside production: one generated once and kept in dataDir (resolveWidgetSecrets). */
    readonly secrets: readonly string[];
  };
  readonly mfa: {
    /** Unset outside production: generated once and kept in dataDir (resolveMfaKey). */
    readonly encryptionKey?: string;
  };
  readonly mail: {
    /** Unset: nothing is e-mailed. */
    readonly smtpUrl?: string;
    readonly from: string;
    /** Links in e-mails start with it (no trailing slash). */
    readonly publicUrl: string;
  };
  /**
   * The session cookie is Secure unless PUBLIC_URL is plain http on this machine (localhost,
   * 127.0.0.1), where browsers would drop a Secure cookie.
   */
  readonly secureCookies: boolean;
  /** Whether anyone may create an account (POST /api/v1/auth/signup); closed: 404. */
  readonly signupOpen: boolean;
  readonly bootstrapOwner?: { readonly email: string; readonly password: string };
  /** How often counted requests are written for analytics. */
  readonly usageFlushIntervalMs: number;
  /** Off: requests are not counted for analytics (to measure what counting costs, bench/). */
  readonly usageRecording: boolean;
  /** Webhook deliveries may go to private addresses and over http (WEBHOOK_ALLOW_PRIVATE). */
  readonly webhookAllowPrivate: boolean;
  readonly logLevel: string;
  /** Unset: JSON lines on stdout. */
  readonly logFile?: string;
  /**
   * Which requests get a log line: `errors` (default) every 4xx and 5xx answer but 429, `all` every
   * answer, `none` none. Analytics counts every request either way (docs/PERFORMANCE.md, "Request log lines only for errors").
   */
  readonly logRequests: 'all' | 'errors' | 'none';
  /** After SIGTERM, how long /health/ready answers 503 before the server stops accepting. */
  readonly shutdownDrainMs: number;
  /**
   * Fastify's trustProxy: whose X-Forwarded-For to believe for the client IP. Unset: nobody's. A
   * hop count is a function (trust the socket and the next hops - 1 addresses): Fastify 5.12
   * turned a number into "trust nobody", which would silently put every client behind one proxy
   * under the proxy's own limit.
   */
  readonly trustProxy: boolean | string | ((address: string, hop: number) => boolean);
  /** Origins (normalised) whose pages may call JWT and public routes cross-origin (DASHBOARD_ORIGINS). */
  readonly dashboardOrigins: readonly string[];
  /**
   * The origins Gatehouse's own pages are served from: PUBLIC_URL's and DASHBOARD_ORIGINS. Every API
   * key is accepted from them whatever its allowed origins, so the dashboard can run a widget key
   * made for another site (docs/DECISIONS.md, "The dashboard may use any key").
   */
  readonly serviceOrigins: readonly string[];
  /** Prometheus metrics (README, "Metrics"); neither set: no /metrics anywhere, no process metrics collected. */
  readonly metrics: {
    /** Bearer token for GET /metrics on the main port. */
    readonly token?: string;
    /** A separate listener serving GET /metrics without auth. */
    readonly port?: number;
  };
  readonly limits: {
    /** Per client IP and endpoint where no valid credential is known (login, 401s, 404s). */
    readonly anonymousPerMinute: number;
    readonly loginFailuresPerEmail: number;
    /** Per client IP, widget key and endpoint, beside the key's own allowance. */
    readonly widgetVisitorPerMinute: number;
    readonly loginFailureWindowSeconds: number;
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');

/** Secrets that ship in examples and must never guard a production deployment. */
const PLACEHOLDER_SECRET = /^(?:change[-_ ]?me|secret|changeit|please[-_ ]?change|your[-_ ]?secret|x+$|0+$)/i;

export class ConfigError extends Error {}

/**
 * TRUST_PROXY as a hop count: the client is the address `hops` steps back from the socket, as
 * proxy-addr counts (0 is the socket's own address). Right when only the proxies can reach
 * Gatehouse: a client that connects directly could name its own address.
 */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

function secureCookiesAt(url: URL): boolean {
  return !(url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1'));
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  // An empty variable (`PORT=` in an env file) counts as unset, so its default applies.
  const given = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ''));
  const env = plainToInstance(EnvironmentVariables, given, { exposeDefaultValues: true });
  const errors = validateSync(env, { whitelist: true });
  if (errors.length > 0) {
    const problems = errors.flatMap((e) => Object.values(e.constraints ?? {}));
    throw new ConfigError(`Invalid environment: ${problems.join('; ')}`);
  }
  const production = env.NODE_ENV === 'production';
  if (production && env.JWT_SECRET === undefined) {
    throw new ConfigError('JWT_SECRET is required when NODE_ENV=production');
  }
  if (env.JWT_SECRET !== undefined && production) {
    if (Buffer.byteLength(env.JWT_SECRET) < 32) throw new ConfigError('JWT_SECRET must be at least 32 bytes');
    if (PLACEHOLDER_SECRET.test(env.JWT_SECRET))
      throw new ConfigError('JWT_SECRET is a placeholder; generate one, e.g. `openssl rand -base64 48`');
  }
  const widgetSecrets = (env.WIDGET_SECRETS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (production && widgetSecrets.length === 0) {
    throw new ConfigError('WIDGET_SECRETS is required when NODE_ENV=production (one or more secrets, comma-separated, the first signs)');
  }
  if (production && widgetSecrets.some((s) => Buffer.byteLength(s) < 32 || PLACEHOLDER_SECRET.test(s))) {
    throw new ConfigError('each WIDGET_SECRETS entry must be at least 32 bytes and not a placeholder; e.g. `openssl rand -base64 48`');
  }
  if (production && env.MFA_ENCRYPTION_KEY === undefined) {
    throw new ConfigError(
      'MFA_ENCRYPTION_KEY is required when NODE_ENV=production (it encrypts TOTP secrets; e.g. `openssl rand -base64 48`)',
    );
  }
  if (production && (Buffer.byteLength(env.MFA_ENCRYPTION_KEY!) < 32 || PLACEHOLDER_SECRET.test(env.MFA_ENCRYPTION_KEY!))) {
    throw new ConfigError('MFA_ENCRYPTION_KEY must be at least 32 bytes and not a placeholder; e.g. `openssl rand -base64 48`');
  }
  if ((env.BOOTSTRAP_OWNER_EMAIL === undefined) !== (env.BOOTSTRAP_OWNER_PASSWORD === undefined)) {
    throw new ConfigError('BOOTSTRAP_OWNER_EMAIL and BOOTSTRAP_OWNER_PASSWORD go together');
  }
  const dashboardOrigins = (env.DASHBOARD_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  const badOrigin = dashboardOrigins.find((o) => normalizeOrigin(o) === undefined);
  if (badOrigin !== undefined) {
    throw new ConfigError(`DASHBOARD_ORIGINS: "${badOrigin}" is not an origin such as https://dashboard.example.com`);
  }
  if (env.METRICS_PORT !== undefined && env.METRICS_PORT === env.PORT) {
    throw new ConfigError('METRICS_PORT must differ from PORT (or use METRICS_TOKEN to serve /metrics on the main port)');
  }
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
  const normalizedDashboardOrigins = [...new Set(dashboardOrigins.map((o) => normalizeOrigin(o)!))];
  return {
    env: env.NODE_ENV as AppConfig['env'],
    port: env.PORT,
    listenAddress: env.LISTEN_ADDRESS,
    dataDir: env.DATA_DIR,
    databaseUrl: env.DATABASE_URL,
    redis: env.REDIS_URL === undefined ? undefined : { url: env.REDIS_URL, cluster: env.REDIS_CLUSTER === 'true' },
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    jwt: { secret: env.JWT_SECRET, expiresIn: env.JWT_EXPIRES_IN, issuer: env.JWT_ISSUER, audience: env.JWT_AUDIENCE },
    widget: { secrets: widgetSecrets },
    mfa: { encryptionKey: env.MFA_ENCRYPTION_KEY },
    signupOpen: env.SIGNUP === 'open',
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, publicUrl },
    secureCookies: secureCookiesAt(new URL(publicUrl)),
    bootstrapOwner:
      env.BOOTSTRAP_OWNER_EMAIL !== undefined && env.BOOTSTRAP_OWNER_PASSWORD !== undefined
        ? { email: env.BOOTSTRAP_OWNER_EMAIL, password: env.BOOTSTRAP_OWNER_PASSWORD }
        : undefined,
    usageFlushIntervalMs: env.USAGE_FLUSH_INTERVAL_MS,
    usageRecording: env.USAGE_RECORDING === 'on',
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === 'true',
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
    logLevel: env.LOG_LEVEL,
    logFile: env.LOG_FILE,
    logRequests: env.LOG_REQUESTS as AppConfig['logRequests'],
    trustProxy:
      env.TRUST_PROXY === undefined
        ? false
        : env.TRUST_PROXY === 'true'
          ? true
          : /^\d+$/.test(env.TRUST_PROXY)
            ? trustHops(Number(env.TRUST_PROXY))
            : env.TRUST_PROXY,
    dashboardOrigins: normalizedDashboardOrigins,
    serviceOrigins: [...new Set([new URL(publicUrl).origin, ...normalizedDashboardOrigins])],
    metrics: { token: env.METRICS_TOKEN, port: env.METRICS_PORT },
    limits: {
      anonymousPerMinute: 30,
      widgetVisitorPerMinute: env.WIDGET_VISITOR_PER_MINUTE,
      loginFailuresPerEmail: 10,
      loginFailureWindowSeconds: 15 * 60,
    },
  };
}

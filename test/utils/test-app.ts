import { randomBytes, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { hashPassword } from '../../src/credentials/passwords';
import type { Role } from '../../src/common/principal';
import { TokenService } from '../../src/credentials/token.service';
import { createApp } from '../../src/app.setup';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { PrismaService } from '../../src/prisma/prisma.service';
import { logFileFor } from './log-scan';

export interface TestApp {
  readonly app: NestFastifyApplication;
  readonly http: ReturnType<typeof request>;
  readonly prisma: PrismaService;
  readonly config: AppConfig;
  close(): Promise<void>;
}

/** True when this run targets the machine's PostgreSQL and Redis (see .ci/run). */
export const onRealServices = Boolean(process.env.E2E_DATABASE_URL);

/**
 * The real app (createApp → configureApp, as main.ts) on a fresh in-memory PGlite migrated as the
 * embedded default is, or on E2E_DATABASE_URL / E2E_REDIS_URL when set. Each app gets its own Redis
 * key prefix, so suites never share counters.
 */
export async function startApp(env: NodeJS.ProcessEnv = {}): Promise<TestApp> {
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: randomBytes(32).toString('hex'),
    WIDGET_SECRETS: randomBytes(32).toString('hex'),
    DATA_DIR: 'memory://',
    DATABASE_URL: process.env.E2E_DATABASE_URL,
    REDIS_URL: process.env.E2E_REDIS_URL,
    REDIS_KEY_PREFIX: `gatehouse-test:${randomUUID()}:`,
    LOG_FILE: logFileFor(`jest-${process.pid}`),
    LOG_REQUESTS: 'all', // every request's line reaches the secret scan
    ...env,
  });
  const app = await createApp(config);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return {
    app,
    http: request(app.getHttpServer()),
    prisma: app.get(PrismaService),
    config,
    close: () => app.close(),
  };
}

export interface TestUser {
  readonly id: string;
  readonly email: string;
  readonly password: string;
  readonly accountId: string;
  readonly role: Role;
  readonly token: string;
}

export interface TestAccount {
  readonly id: string;
  readonly owner: TestUser;
  addUser(role: Role): Promise<TestUser>;
  createKey(body?: Record<string, unknown>): Promise<{ id: string; key: string }>;
}

/**
 * Test keys' challenge difficulty (a visitor's median wait, ms) unless a test sets its own: the
 * least a key may have, so a test solves a challenge in about a tenth of a second (test/utils/widget.ts).
 */
export const EASY_CHALLENGE = 250;

let passwordHash: Promise<string> | undefined;
export const TEST_PASSWORD = 'correct horse battery staple';

/** A plan of its own with tiny limits, so a test reaches them in a few requests. */
export async function createPlan(t: TestApp, apiRequestsPerMinute: number, managementRequestsPerMinute: number): Promise<string> {
  const id = `test-${randomUUID()}`;
  await t.prisma.plan.create({ data: { id, name: id, apiRequestsPerMinute, managementRequestsPerMinute } });
  return id;
}

/** A new account (unique names and emails: suites never assume an empty database). */
export async function createAccount(t: TestApp, plan = 'free'): Promise<TestAccount> {
  passwordHash ??= hashPassword(TEST_PASSWORD);
  const account = await t.prisma.account.create({ data: { name: `Test ${randomUUID()}`, planId: plan } });
  const tokens = t.app.get(TokenService);
  const addUser = async (role: Role): Promise<TestUser> => {
    const email = `${role.toLowerCase()}-${randomUUID()}@example.com`;
    const user = await t.prisma.user.create({ data: { email, role, accountId: account.id, passwordHash: await passwordHash! } });
    return { id: user.id, email, password: TEST_PASSWORD, accountId: account.id, role, token: tokens.issue(user).token };
  };
  const owner = await addUser('OWNER');
  let keys = 0;
  return {
    id: account.id,
    owner,
    addUser,
    async createKey(body = {}) {
      const res = await t.http
        .post('/api/v1/api-keys')
        .set('Authorization', `Bearer ${owner.token}`)
        // Names are unique among an account's active keys (docs/API.md): the default is numbered.
        .send({ name: `test key ${++keys}`, challengeWaitMs: EASY_CHALLENGE, ...body });
      if (res.status !== 201) throw new Error(`createKey: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id, key: res.body.key };
    },
  };
}

/**
 * `count` sign-ins of the account's OWNER written straight into its audit log (one statement, for
 * logs too long to make through the API): from 192.0.2.1, request ids `bulk-1` (the newest) to
 * `bulk-<count>`, one a second back from 2026-01-01T00:00:00.
 */
export async function insertSignIns(t: TestApp, account: TestAccount, count: number): Promise<void> {
  await t.prisma.$executeRawUnsafe(
    `INSERT INTO "AuditEvent" ("id", "accountId", "actorId", "actorEmail", "action", "targetType", "targetId", "requestId", "ip", "createdAt")
     SELECT gen_random_uuid(), $1::uuid, $2::uuid, $3, 'auth.login', 'user', $2, 'bulk-' || n, '192.0.2.1',
            TIMESTAMP '2026-01-01 00:00:00' - n * INTERVAL '1 second'
     FROM generate_series(1, $4::int) AS n`,
    account.id,
    account.owner.id,
    account.owner.email,
    count,
  );
}

/** The rate-limit headers of every /api/v1 answer (docs/API.md, "Rate limits"). */
export function expectRateLimitHeaders(res: request.Response): void {
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit', 'x-request-id']) {
    expect({ header: h, value: res.headers[h] }).toEqual({ header: h, value: expect.any(String) });
  }
  expect(Number(res.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
  expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(0);
  expect(res.headers['ratelimit-policy']).toBe(`"default";q=${res.headers['x-ratelimit-limit']};w=60`);
  expect(res.headers['ratelimit']).toBe(`"default";r=${res.headers['x-ratelimit-remaining']};t=${res.headers['x-ratelimit-reset']}`);
}

/** The documented error body, with the request id of the X-Request-Id header. */
export function expectError(res: request.Response, status: number, code: string): void {
  expect({ status: res.status, type: res.headers['content-type'], body: res.body }).toEqual({
    status,
    type: 'application/json; charset=utf-8',
    body: expect.objectContaining({ statusCode: status, error: code, message: expect.any(String), requestId: res.headers['x-request-id'] }),
  });
}

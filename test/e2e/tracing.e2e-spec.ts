import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { AppProcess, buildOnce, createKeyOn, keyNamesOn, signInTo } from '../utils/app-process';
import { eventually } from '../utils/eventually';
import { OtlpReceiver } from '../utils/otlp-receiver';
import { WebhookReceiver } from '../utils/webhook-receiver';

const ROOT = resolve(__dirname, '../..');
const PROBE = resolve(__dirname, '../utils/loaded-modules.cjs');
const SERVER = 2;

/**
 * Tracing (README, "Tracing") in the built app as its own process, exporting to a real OTLP/HTTP
 * receiver: on the embedded default, and on the machine's PostgreSQL and Redis when the suite runs
 * there (E2E_DATABASE_URL, E2E_REDIS_URL).
 */
describe('Tracing (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  const work = mkdtempSync(join(tmpdir(), 'gatehouse-tracing-'));
  const pgUrl = process.env.E2E_DATABASE_URL;
  const redisUrl = pgUrl === undefined ? undefined : process.env.E2E_REDIS_URL;
  const database: NodeJS.ProcessEnv =
    pgUrl === undefined
      ? { DATA_DIR: join(work, 'data') }
      : { DATABASE_URL: pgUrl, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `gatehouse-test:${randomUUID()}:` };
  const owner = { email: `tracing-${randomUUID()}@example.com`, password: 'a password nobody traces' };
  const env = (more: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
    ...database,
    JWT_SECRET: randomBytes(32).toString('hex'),
    WIDGET_SECRETS: randomBytes(32).toString('hex'),
    // Lists the modules the process loaded on SIGUSR2 (modulesOf).
    NODE_OPTIONS: `--require ${PROBE}`,
    OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
    ...more,
  });
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    buildOnce();
    receiver = await OtlpReceiver.start();
    const { DATABASE_URL: _url, DATA_DIR: _dir, ...inherited } = process.env;
    await promisify(execFile)(process.execPath, [join(ROOT, 'dist/cli/create-account.js'), '--email', owner.email, '--name', 'Traced'], {
      cwd: ROOT,
      env: { ...inherited, ...database, OWNER_PASSWORD: owner.password },
    });
  }, 180_000);
  afterAll(async () => {
    await receiver?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** The paths of the modules `app` has loaded so far (`file`: its LOADED_MODULES_FILE). */
  async function modulesOf(app: AppProcess, file: string): Promise<string[]> {
    process.kill(app.pid!, 'SIGUSR2');
    await eventually(() => existsSync(file));
    return JSON.parse(readFileSync(file, 'utf8')) as string[];
  }

  /**
   * OpenTelemetry's SDK, exporters and instrumentations. Not @opentelemetry/api: prom-client requires
   * that small no-op API (for exemplars) whether tracing is on or not.
   */
  const otel = (paths: string[]) => paths.filter((p) => /[\\/](@opentelemetry[\\/](?!api[\\/])|@prisma[\\/]instrumentation[\\/])/.test(p));

  const traced = join(work, 'traced.json');
  const untraced = join(work, 'untraced.json');

  it("exports a request's server span with its Prisma, SQL and Redis spans in the same trace, flushed at the stop, with no secret in any attribute", async () => {
    const app = await AppProcess.start(
      env({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        LOADED_MODULES_FILE: traced,
        // Longer than the test, and a batch larger than its spans (PostgreSQL and Redis make many):
        // what arrives is what the SIGTERM stop flushed.
        OTEL_BSP_SCHEDULE_DELAY: '120000',
        OTEL_BSP_MAX_QUEUE_SIZE: '65536',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '65536',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      }),
    );
    const hooks = await WebhookReceiver.start();
    const hookToken = randomBytes(16).toString('hex'); // the receiver's own secret, in its URL
    const hookUrl = hooks.url('/traced');
    let token: string;
    let key: string | undefined;
    let me: { id: string; account: { id: string } };
    let stopped: Awaited<ReturnType<AppProcess['stop']>> | undefined;
    try {
      token = await signInTo(app, owner);
      const hook = await fetch(`${app.url}/api/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ url: `${hookUrl}?token=${hookToken}` }),
      });
      expect(hook.status).toBe(201);
      ({ key } = await createKeyOn(app, token, 'traced key'));
      expect(key).toEqual(expect.any(String));
      expect(await keyNamesOn(app, token)).toEqual(['traced key']);
      me = (await (await fetch(`${app.url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as typeof me;
      await hooks.waitFor(`/traced?token=${hookToken}`); // api_key.created, delivered
      const ping = await fetch(`${app.url}/api/v1/public/ping`, { headers: { 'x-api-key': key! } });
      expect(ping.status).toBe(200);
      expect(otel(await modulesOf(app, traced))).toEqual(
        expect.arrayContaining([expect.stringMatching(/@opentelemetry[\\/]sdk-node[\\/]/)]),
      );
      expect(receiver.bodies).toEqual([]);
    } finally {
      stopped = await app.stop();
      await hooks.close();
    }
    expect([0, 'SIGTERM']).toContain(stopped.code ?? stopped.signal); // a clean stop

    const { spans } = receiver;
    const listed = spans.filter((s) => s.kind === SERVER && s.name === 'GET /api/v1/api-keys');
    expect(listed).toHaveLength(1);
    const [server] = listed;
    expect(server).toMatchObject({ parentSpanId: undefined, attributes: expect.objectContaining({ 'http.route': '/api/v1/api-keys' }) });
    expect(server.resource['service.name']).toBe('gatehouse');

    const below = receiver.descendantsOf(server);
    expect(below.map((s) => s.name)).toEqual(expect.arrayContaining(['prisma:client:operation', 'prisma:client:db_query']));
    const sql = below.filter((s) => s.attributes['db.system.name'] === 'postgresql' && s.name.startsWith('pg.query'));
    const redis = below.filter((s) => s.attributes['db.system.name'] === 'redis');
    // The embedded database is not reached through pg, and has no Redis beside it.
    expect({ sql: sql.length > 0, redis: redis.length > 0 }).toEqual({ sql: pgUrl !== undefined, redis: redisUrl !== undefined });
    // SQL text with its placeholders, Prisma's and pg's alike: the user's and account's ids are bound values, never in it.
    const statements = below
      .filter((s) => s.attributes['db.system.name'] !== 'redis')
      .map((s) => (s.attributes['db.query.text'] as string | undefined) ?? '');
    expect(statements.filter((q) => /\$1\b/.test(q)).length).toBeGreaterThan(0);
    expect(statements.filter((q) => q.includes(me.id) || q.includes(me.account.id))).toEqual([]);
    // A Redis command's name alone: its keys carry e-mail addresses and client IPs.
    for (const s of redis) expect(s.attributes['db.query.text']).toBe(s.attributes['db.operation.name']);

    // The webhook delivery: an outgoing request, its URL without the query.
    const delivery = spans.filter((s) => s.kind === 3 && s.attributes['url.full'] === hookUrl);
    expect(delivery).toHaveLength(1);

    // Probes are not traced; only traces were exported (no metrics, no logs).
    const paths = spans.filter((s) => s.kind === SERVER).map((s) => String(s.attributes['http.target'] ?? s.attributes['url.path']));
    expect(paths).toEqual(expect.arrayContaining(['/api/v1/auth/login', '/api/v1/api-keys', '/api/v1/public/ping']));
    expect(paths.filter((p) => p.startsWith('/health'))).toEqual([]);
    expect(receiver.others).toEqual([]);

    const exported = receiver.bodies.join('\n');
    for (const secret of [token!, key!, owner.password, owner.email, hookToken]) expect(exported.includes(secret)).toBe(false);
  }, 120_000);

  it('loads nothing of OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is unset', async () => {
    const exports = receiver.bodies.length;
    const app = await AppProcess.start(env({ LOADED_MODULES_FILE: untraced }));
    try {
      expect(await keyNamesOn(app, await signInTo(app, owner))).toEqual(['traced key']);
      const loaded = await modulesOf(app, untraced);
      expect(loaded).toEqual(expect.arrayContaining([expect.stringMatching(/@prisma[\\/]client[\\/]/)])); // the probe sees the app's modules
      expect(otel(loaded)).toEqual([]);
    } finally {
      await app.stop();
    }
    expect(receiver.bodies.length).toBe(exports);
  }, 120_000);
});

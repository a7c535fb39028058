import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { AppProcess, signInTo } from '../utils/app-process';
import { eventually } from '../utils/eventually';
import { createAccount, onRealServices, startApp, TestApp } from '../utils/test-app';
import { WebhookReceiver } from '../utils/webhook-receiver';

const OWNER = { email: `owner-${randomUUID()}@example.com`, password: 'a long enough owner passphrase' };

/**
 * An instance killed (SIGKILL) while a delivery is in flight: the delivery is not lost. Embedded, the
 * instance comes back on its data directory and sends it again; on PostgreSQL another instance does.
 * The job expires after 30 s and is taken again within the next 30 s: this test takes about a minute.
 */
describe('a webhook delivery whose instance is killed mid-attempt', () => {
  let receiver: WebhookReceiver;
  const instances: AppProcess[] = [];
  let dataDir: string | undefined;
  const held: ServerResponse[] = [];
  let setup: TestApp | undefined;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // The first request is held (no answer) until its sender dies; later ones are answered.
    receiver.on('/slow', (_req, res, nth) => {
      if (nth === 1) held.push(res);
      else res.end('ok');
    });
  });
  afterAll(async () => {
    await Promise.all(instances.map((i) => i.kill('SIGKILL')));
    await setup?.close();
    for (const res of held) res.destroy();
    await receiver.close();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it('is sent again, with the same webhook-id, and recorded once delivered', async () => {
    dataDir = onRealServices ? undefined : mkdtempSync(join(tmpdir(), 'gatehouse-webhook-crash-'));
    const env = {
      NODE_ENV: 'production',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      JWT_SECRET: randomBytes(32).toString('hex'),
      WIDGET_SECRETS: randomBytes(32).toString('hex'),
      MFA_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      BOOTSTRAP_OWNER_EMAIL: OWNER.email,
      BOOTSTRAP_OWNER_PASSWORD: OWNER.password,
      ...(onRealServices
        ? {
            DATABASE_URL: process.env.E2E_DATABASE_URL,
            REDIS_URL: process.env.E2E_REDIS_URL,
            REDIS_KEY_PREFIX: `gatehouse-test:${randomUUID()}:`,
          }
        : { DATA_DIR: dataDir }),
    };
    const first = await AppProcess.start(env);
    instances.push(first);
    let token: string;
    if (onRealServices) {
      // The shared database has users already, so no bootstrap owner: an account of the test's own,
      // its token signed with the instances' JWT secret. Closed at once, so that only the instances
      // under test take deliveries.
      setup = await startApp(env);
      token = (await createAccount(setup)).owner.token;
      await setup.close();
      setup = undefined;
    } else {
      token = await signInTo(first, OWNER);
    }
    const auth = { authorization: `Bearer ${token}` };
    const created = await fetch(`${first.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url('/slow') }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await fetch(`${first.url}/api/v1/webhooks/${id}/test`, { method: 'POST', headers: auth })).status).toBe(202);

    const [inFlight] = await receiver.waitFor('/slow');
    // Another instance is up before the one holding the attempt dies (embedded: the same one, restarted on its directory).
    let survivor: AppProcess;
    if (onRealServices) {
      survivor = await AppProcess.start(env);
      instances.push(survivor);
      await first.kill('SIGKILL');
    } else {
      await first.kill('SIGKILL');
      survivor = await AppProcess.start(env);
      instances.push(survivor);
    }

    const [, again] = await receiver.waitFor('/slow', 2, 120_000);
    expect(again.headers['webhook-id']).toBe(inFlight.headers['webhook-id']);
    const delivery = await eventually(
      async () => {
        const res = await fetch(`${survivor.url}/api/v1/webhooks/${id}/deliveries`, { headers: auth });
        const [d] = ((await res.json()) as { data: { status: string; attemptCount: number }[] }).data;
        expect(d.status).toBe('delivered');
        return d;
      },
      { timeoutMs: 10_000 },
    );
    expect(delivery.attemptCount).toBe(1); // the killed attempt left no record
    expect(receiver.at('/slow')).toHaveLength(2);
  }, 240_000);
});

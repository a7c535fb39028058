import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { generateSync } from 'otplib';
import { eventually } from '../utils/eventually';
import { freePort } from '../utils/private-redis';
import { SoftAuthenticator } from '../utils/soft-authenticator';
import { createAccount, createPlan, startApp, TEST_PASSWORD, TestApp } from '../utils/test-app';
import { altchaPayload } from '../utils/widget';

/**
 * Prism (Stoplight's validating proxy) stands between the client and the real app, checks every
 * request and answer against the served OpenAPI document, and reports what does not match in an
 * `sl-violations` header. Every operation is called here with its common answers — success and
 * the documented errors — and no answer may break the document, nor an accepted request.
 */
describe('the OpenAPI document, checked by a validating proxy', () => {
  let t: TestApp;
  let prism: ChildProcess;
  let base: string;
  const violations: string[] = [];
  let calls = 0;
  let refusedByBoth = 0;

  /** A request through the proxy; what it reports is kept, and the answer returned. */
  async function call(
    method: string,
    path: string,
    init: { token?: string; key?: string; body?: unknown; raw?: string; type?: string } = {},
  ) {
    const headers: Record<string, string> = {};
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.key) headers['x-api-key'] = init.key;
    if (init.body !== undefined || init.raw !== undefined) headers['content-type'] = init.type ?? 'application/json';
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
    });
    const text = await res.text();
    calls++;
    // An answer that breaks the document is always a defect; a request that breaks it only when the
    // app accepted it (the bad requests below are meant to break it, and must be refused).
    const all = JSON.parse(res.headers.get('sl-violations') ?? '[]') as Array<{ location: string[]; message: string }>;
    if (res.status >= 400 && all.some((v) => v.location[0] === 'request')) refusedByBoth++;
    const reported = all.filter((v) => v.location[0] === 'response' || res.status < 400);
    if (reported.length > 0)
      violations.push(`${method} ${path} → ${res.status}: ${reported.map((v) => `${v.location.join('.')}: ${v.message}`).join('; ')}`);
    const json = res.headers.get('content-type')?.startsWith('application/json') === true;
    return { status: res.status, body: text === '' || !json ? undefined : (JSON.parse(text) as Record<string, unknown>), text };
  }

  beforeAll(async () => {
    t = await startApp();
    await t.app.listen(0, '127.0.0.1');
    const app = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    const file = join(mkdtempSync(join(tmpdir(), 'contract-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(await (await fetch(`${app}/docs-json`)).json()));
    const port = await freePort();
    const root = resolve(__dirname, '../..');
    prism = spawn(join(root, 'node_modules/.bin/prism'), ['proxy', file, app, '--port', String(port), '--host', '127.0.0.1'], {
      stdio: 'ignore',
    });
    base = `http://127.0.0.1:${port}`;
    await eventually(
      async () =>
        (await fetch(`${base}/health`).then(
          (r) => r.status,
          () => 0,
        )) === 200,
      { timeoutMs: 60_000 },
    );
  }, 90_000);

  afterAll(async () => {
    prism?.kill();
    await t?.close();
  });

  it('reports no violation on any operation, for successes and documented errors alike', async () => {
    const account = await createAccount(t);
    const owner = account.owner;
    const analyst = await account.addUser('ANALYST');
    const member = await account.addUser('DEVELOPER');

    // Sign-in and the profile.
    expect((await call('POST', '/api/v1/auth/login', { body: { email: owner.email, password: TEST_PASSWORD } })).status).toBe(200);
    expect((await call('POST', '/api/v1/auth/login', { body: { email: owner.email, password: 'not the password' } })).status).toBe(401);
    expect((await call('POST', '/api/v1/auth/login', { body: { email: 'not an email' } })).status).toBe(400);
    expect((await call('POST', '/api/v1/auth/login', { raw: 'email=x', type: 'text/plain' })).status).toBe(415);
    expect((await call('POST', '/api/v1/auth/login', { raw: JSON.stringify({ email: 'a'.repeat(70_000) }) })).status).toBe(413);
    expect((await call('GET', '/api/v1/auth/me', { token: owner.token })).status).toBe(200);
    expect((await call('GET', '/api/v1/auth/me')).status).toBe(401);
    expect((await call('GET', '/api/v1/auth/me', { token: 'not.a.token' })).status).toBe(401);
    expect(
      (
        await call('PUT', '/api/v1/auth/password', {
          token: member.token,
          body: { currentPassword: 'wrong password here', newPassword: 'another long password' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('PUT', '/api/v1/auth/password', {
          token: member.token,
          body: { currentPassword: TEST_PASSWORD, newPassword: 'another long password' },
        })
      ).status,
    ).toBe(200);

    // Plans and the account.
    expect((await call('GET', '/api/v1/plans', { token: owner.token })).status).toBe(200);
    expect((await call('GET', '/api/v1/account', { token: analyst.token })).status).toBe(200);
    expect((await call('PATCH', '/api/v1/account', { token: owner.token, body: { name: 'Renamed', nonceTtlSeconds: 600 } })).status).toBe(
      200,
    );
    expect((await call('PATCH', '/api/v1/account', { token: analyst.token, body: { name: 'Nope' } })).status).toBe(403);
    expect((await call('PUT', '/api/v1/account/plan', { token: owner.token, body: { plan: 'pro' } })).status).toBe(200);
    expect((await call('PUT', '/api/v1/account/plan', { token: owner.token, body: { plan: 'no-such-plan' } })).status).toBe(400);

    // The team.
    expect((await call('GET', '/api/v1/team/members', { token: owner.token })).status).toBe(200);
    const invited = await call('POST', '/api/v1/team/invitations', {
      token: owner.token,
      body: { email: `new-${randomUUID()}@example.com`, role: 'DEVELOPER' },
    });
    expect(invited.status).toBe(201);
    const toMember = await call('POST', '/api/v1/team/invitations', {
      token: owner.token,
      body: { email: member.email, role: 'DEVELOPER' },
    });
    expect(toMember.status).toBe(201);
    expect((await call('GET', '/api/v1/team/invitations', { token: owner.token })).status).toBe(200);
    expect((await call('DELETE', `/api/v1/team/invitations/${toMember.body!.id as string}`, { token: owner.token })).status).toBe(204);
    expect((await call('DELETE', `/api/v1/team/invitations/${toMember.body!.id as string}`, { token: owner.token })).status).toBe(404);
    const toMemberAgain = await call('POST', '/api/v1/team/invitations', {
      token: owner.token,
      body: { email: member.email, role: 'DEVELOPER' },
    });
    expect(
      (
        await call('POST', '/api/v1/auth/invitations/accept', {
          body: { token: toMemberAgain.body!.token, password: 'a new member password' },
        })
      ).status,
    ).toBe(409);
    expect((await call('POST', '/api/v1/auth/invitations/preview', { body: { token: invited.body!.token } })).status).toBe(200);
    expect((await call('POST', '/api/v1/auth/invitations/preview', { body: { token: 'ghi_not_an_invitation' } })).status).toBe(401);
    expect(
      (await call('POST', '/api/v1/auth/invitations/accept', { body: { token: invited.body!.token, password: 'a new member password' } }))
        .status,
    ).toBe(200);
    expect(
      (await call('POST', '/api/v1/auth/invitations/accept', { body: { token: invited.body!.token, password: 'a new member password' } }))
        .status,
    ).toBe(401);
    expect((await call('PATCH', `/api/v1/team/members/${analyst.id}`, { token: owner.token, body: { role: 'ADMIN' } })).status).toBe(200);
    expect((await call('PATCH', `/api/v1/team/members/${randomUUID()}`, { token: owner.token, body: { role: 'ADMIN' } })).status).toBe(404);
    expect((await call('PATCH', `/api/v1/team/members/${owner.id}`, { token: owner.token, body: { role: 'ADMIN' } })).status).toBe(409);
    expect((await call('DELETE', `/api/v1/team/members/${member.id}`, { token: owner.token })).status).toBe(204);

    // Sign-up is closed here (the default): both routes are 404.
    expect((await call('GET', '/api/v1/auth/signup/challenge')).status).toBe(404);
    expect(
      (await call('POST', '/api/v1/auth/signup', { body: { email: 'a@example.com', password: 'x', accountName: 'A', altcha: 'x' } }))
        .status,
    ).toBe(404);

    // Password resets (no SMTP_URL here: the token is answered, and "forgot password" is 404).
    const forgetful = await account.addUser('DEVELOPER');
    const reset = await call('POST', `/api/v1/team/members/${forgetful.id}/password-reset`, { token: owner.token });
    expect(reset.status).toBe(201);
    expect((await call('POST', `/api/v1/team/members/${randomUUID()}/password-reset`, { token: owner.token })).status).toBe(404);
    const resetBody = (newPassword: string) => ({ body: { token: reset.body!.token, newPassword } });
    expect((await call('POST', '/api/v1/auth/password-reset/accept', resetBody('short'))).status).toBe(400);
    expect((await call('POST', '/api/v1/auth/password-reset/accept', resetBody('a brand new developer passphrase'))).status).toBe(200);
    expect((await call('POST', '/api/v1/auth/password-reset/accept', resetBody('a brand new developer passphrase'))).status).toBe(401);
    expect((await call('POST', '/api/v1/auth/password-reset/request', { body: { email: 'someone@example.com' } })).status).toBe(404);

    // Sessions: the reset's sign-in is one; a second sign-in ends it; an admin ends the rest.
    const resetToken = (
      await call('POST', '/api/v1/auth/login', { body: { email: forgetful.email, password: 'a brand new developer passphrase' } })
    ).body!.token as string;
    const sessions = await call('GET', '/api/v1/auth/sessions', { token: resetToken });
    expect(sessions.status).toBe(200);
    const other = (sessions.body!.data as Array<{ id: string; current: boolean }>).find((s) => !s.current)!;
    expect((await call('DELETE', `/api/v1/auth/sessions/${other.id}`, { token: resetToken })).status).toBe(204);
    expect((await call('DELETE', `/api/v1/auth/sessions/${other.id}`, { token: resetToken })).status).toBe(404);
    expect((await call('DELETE', '/api/v1/auth/sessions/not-a-uuid', { token: resetToken })).status).toBe(400);
    expect((await call('DELETE', `/api/v1/team/members/${forgetful.id}/sessions`, { token: owner.token })).status).toBe(204);
    expect((await call('DELETE', `/api/v1/team/members/${randomUUID()}/sessions`, { token: owner.token })).status).toBe(404);
    expect((await call('GET', '/api/v1/auth/sessions', { token: resetToken })).status).toBe(401);

    // Second factors: TOTP with recovery codes, the sign-in's second step, passkeys.
    const careful = await account.addUser('DEVELOPER');
    const bearer = { token: careful.token };
    expect((await call('GET', '/api/v1/auth/mfa', bearer)).status).toBe(200);
    const totp = await call('POST', '/api/v1/auth/mfa/totp', bearer);
    expect(totp.status).toBe(201);
    expect((await call('POST', '/api/v1/auth/mfa/totp/confirm', { ...bearer, body: { code: 'abcdef' } })).status).toBe(400);
    const secret = totp.body!.secret as string;
    const confirmed = await call('POST', '/api/v1/auth/mfa/totp/confirm', { ...bearer, body: { code: generateSync({ secret }) } });
    expect(confirmed.status).toBe(200);
    expect((await call('POST', '/api/v1/auth/mfa/totp', bearer)).status).toBe(409);
    const codes = confirmed.body!.recoveryCodes as string[];
    const stepAnswer = await call('POST', '/api/v1/auth/login', { body: { email: careful.email, password: TEST_PASSWORD } });
    expect(stepAnswer.body).toMatchObject({ mfaRequired: true });
    const mfaToken = stepAnswer.body!.mfaToken as string;
    expect((await call('POST', '/api/v1/auth/login/mfa', { body: { mfaToken, code: '000000' } })).status).toBe(401);
    expect((await call('POST', '/api/v1/auth/login/mfa', { body: { mfaToken, code: codes[0] } })).status).toBe(200);
    expect((await call('POST', '/api/v1/auth/mfa/recovery-codes', { ...bearer, body: { password: 'wrong' } })).status).toBe(400);
    expect((await call('POST', '/api/v1/auth/mfa/recovery-codes', { ...bearer, body: { password: TEST_PASSWORD } })).status).toBe(201);
    const authenticator = new SoftAuthenticator(t.config.serviceOrigins[0]);
    const registration = await call('POST', '/api/v1/auth/passkeys/registration-options', bearer);
    expect(registration.status).toBe(200);
    const passkey = await call('POST', '/api/v1/auth/passkeys', {
      ...bearer,
      body: { name: 'Contract', response: authenticator.create(registration.body as never) },
    });
    expect(passkey.status).toBe(201);
    expect((await call('POST', '/api/v1/auth/passkeys', { ...bearer, body: { response: {} } })).status).toBe(400);
    expect((await call('GET', '/api/v1/auth/passkeys', bearer)).status).toBe(200);
    expect(
      (await call('PATCH', `/api/v1/auth/passkeys/${passkey.body!.id as string}`, { ...bearer, body: { name: 'Renamed' } })).status,
    ).toBe(200);
    expect((await call('PATCH', `/api/v1/auth/passkeys/${randomUUID()}`, { ...bearer, body: { name: 'x' } })).status).toBe(404);
    const passwordless = await call('POST', '/api/v1/auth/passkeys/authentication-options', { body: {} });
    expect(passwordless.status).toBe(200);
    expect(
      (await call('POST', '/api/v1/auth/login/passkey', { body: { response: authenticator.get(passwordless.body as never) } })).status,
    ).toBe(200);
    expect((await call('POST', '/api/v1/auth/passkeys/authentication-options', { body: { mfaToken: 'ghm_gone' } })).status).toBe(401);
    expect((await call('POST', '/api/v1/auth/login/passkey', { body: { response: {} } })).status).toBe(401);
    expect(
      (await call('DELETE', `/api/v1/auth/passkeys/${passkey.body!.id as string}`, { ...bearer, body: { password: TEST_PASSWORD } }))
        .status,
    ).toBe(204);
    expect((await call('DELETE', '/api/v1/auth/mfa/totp', { ...bearer, body: { password: 'wrong' } })).status).toBe(400);
    expect((await call('DELETE', '/api/v1/auth/mfa/totp', { ...bearer, body: { password: TEST_PASSWORD } })).status).toBe(204);
    expect((await call('DELETE', '/api/v1/auth/mfa/totp', { ...bearer, body: { password: TEST_PASSWORD } })).status).toBe(404);

    // API keys.
    expect((await call('POST', '/api/v1/api-keys', { token: owner.token, body: { name: '' } })).status).toBe(400);
    const created = await call('POST', '/api/v1/api-keys', {
      token: owner.token,
      body: { name: 'Checkout', allowedOrigins: ['https://shop.example.com'], expiresAt: '2030-01-01T00:00:00Z', challengeWaitMs: 1000 },
    });
    expect(created.status).toBe(201);
    const id = created.body!.id as string;
    expect((await call('GET', '/api/v1/api-keys', { token: owner.token })).status).toBe(200);
    expect((await call('GET', `/api/v1/api-keys/${id}`, { token: owner.token })).status).toBe(200);
    expect((await call('GET', `/api/v1/api-keys/${randomUUID()}`, { token: owner.token })).status).toBe(404);
    expect((await call('GET', '/api/v1/api-keys/not-a-uuid', { token: owner.token })).status).toBe(400);
    expect(
      (
        await call('PATCH', `/api/v1/api-keys/${id}`, {
          token: owner.token,
          body: { name: 'Checkout v2', scopes: ['widget', 'verify'], challengeWaitMs: null },
        })
      ).status,
    ).toBe(200);
    expect((await call('PATCH', `/api/v1/api-keys/${id}`, { token: owner.token, body: { challengeWaitMs: 250 } })).status).toBe(200);
    // A widget-only key: readable (widgetKey a string), and refused a secret scope.
    const widgetOnly = await call('POST', '/api/v1/api-keys', { token: owner.token, body: { name: 'Widget', scopes: ['widget'] } });
    expect(widgetOnly.body).toMatchObject({ widgetKey: widgetOnly.body!.key });
    const widgetOnlyId = widgetOnly.body!.id as string;
    expect((await call('GET', `/api/v1/api-keys/${widgetOnlyId}`, { token: owner.token })).body).toMatchObject({
      widgetKey: expect.any(String),
    });
    const widened = await call('PATCH', `/api/v1/api-keys/${widgetOnlyId}`, { token: owner.token, body: { scopes: ['widget', 'verify'] } });
    expect(widened.status).toBe(409);
    const rotated = await call('POST', `/api/v1/api-keys/${id}/rotate`, { token: owner.token, body: { gracePeriodSeconds: 60 } });
    expect(rotated.status).toBe(200);
    const key = rotated.body!.key as string;

    // The widget, nonces and the public ping.
    const { key: allScopes } = await account.createKey();
    expect((await call('GET', '/api/v1/widget/config', { key })).status).toBe(200);
    const challenge = await call('GET', '/api/v1/widget/challenge', { key });
    expect(challenge.status).toBe(200);
    // Solved by altcha-lib's own solver: the challenge is ALTCHA v2 as any ALTCHA client reads it.
    const solution = await solveChallenge({ challenge: challenge.body as unknown as Challenge, deriveKey });
    const altcha = altchaPayload(challenge.body, solution!);
    expect((await call('POST', '/api/v1/widget/nonces', { key, body: {} })).status).toBe(400);
    const issued = await call('POST', '/api/v1/widget/nonces', { key, body: { altcha } });
    expect(issued.status).toBe(201);
    expect((await call('POST', '/api/v1/widget/nonces', { key, body: { altcha } })).status).toBe(422);
    expect((await call('POST', '/api/v1/nonces/verify', { key, body: { nonce: issued.body!.nonce } })).status).toBe(200);
    expect((await call('POST', '/api/v1/nonces/verify', { key, body: { nonce: issued.body!.nonce } })).body).toMatchObject({
      valid: false,
    });
    expect((await call('POST', '/api/v1/nonces/verify', { key, body: {} })).status).toBe(400);
    expect((await call('POST', '/api/v1/nonces/verify', { key, body: { nonce: 'not a nonce' } })).body).toEqual({
      valid: false,
      reason: 'unknown',
    });
    expect((await call('GET', '/api/v1/config')).status).toBe(200);
    expect((await call('GET', '/api/v1/public/ping', { key: allScopes })).status).toBe(200);
    expect((await call('GET', '/api/v1/public/ping', { key })).status).toBe(403);
    expect((await call('GET', '/api/v1/public/ping', { key: 'ghk_not_a_key' })).status).toBe(401);
    expect((await call('GET', '/api/v1/public/ping')).status).toBe(401);

    // Analytics, the audit log and webhooks.
    expect((await call('GET', '/api/v1/analytics/usage?groupBy=endpoint', { token: analyst.token })).status).toBe(200);
    expect((await call('GET', '/api/v1/analytics/usage?groupBy=sideways', { token: analyst.token })).status).toBe(400);
    expect((await call('GET', '/api/v1/analytics/widget?groupBy=minute', { token: analyst.token })).status).toBe(200);
    expect((await call('GET', `/api/v1/analytics/widget?groupBy=apiKey&apiKeyId=${randomUUID()}`, { token: analyst.token })).status).toBe(
      404,
    );
    expect((await call('GET', '/api/v1/analytics/widget?groupBy=endpoint', { token: analyst.token })).status).toBe(400);
    expect((await call('GET', '/api/v1/audit-log?limit=5', { token: owner.token })).status).toBe(200);
    expect((await call('GET', `/api/v1/audit-log?actorId=${owner.id}`, { token: owner.token })).status).toBe(200);
    const csv = await call('GET', '/api/v1/audit-log/export.csv?action=auth.login', { token: owner.token });
    expect(csv.status).toBe(200);
    expect(csv.text).toMatch(/^createdAt,action,/);
    expect((await call('GET', '/api/v1/audit-log/export.csv?actorId=nobody', { token: owner.token })).status).toBe(400);
    const developer = await account.addUser('DEVELOPER');
    expect((await call('GET', '/api/v1/audit-log/export.csv', { token: developer.token })).status).toBe(403);
    const hook = await call('POST', '/api/v1/webhooks', {
      token: owner.token,
      body: { url: 'https://93.184.215.14/hooks', description: 'Orders', events: ['webhook.test', 'api_key.revoked'] },
    });
    expect(hook.status).toBe(201);
    const hookUrl = `/api/v1/webhooks/${hook.body!.id as string}`;
    expect((await call('GET', '/api/v1/webhooks', { token: owner.token })).status).toBe(200);
    expect((await call('GET', hookUrl, { token: owner.token })).status).toBe(200);
    expect((await call('PATCH', hookUrl, { token: owner.token, body: { enabled: false, events: ['webhook.test'] } })).status).toBe(200);
    expect((await call('PATCH', hookUrl, { token: owner.token, body: { description: null } })).body).toMatchObject({ description: null });
    expect((await call('POST', `${hookUrl}/rotate-secret`, { token: owner.token, body: { gracePeriodSeconds: 60 } })).status).toBe(200);
    const test = await call('POST', `${hookUrl}/test`, { token: owner.token });
    expect(test.status).toBe(202);
    expect((await call('GET', `${hookUrl}/deliveries`, { token: owner.token })).status).toBe(200);
    // The endpoint is disabled: a retry is a conflict.
    expect((await call('POST', `${hookUrl}/deliveries/${test.body!.deliveryId as string}/retry`, { token: owner.token })).status).toBe(409);
    expect((await call('POST', `${hookUrl}/deliveries/${randomUUID()}/retry`, { token: owner.token })).status).toBe(404);
    expect((await call('DELETE', hookUrl, { token: owner.token })).status).toBe(204);

    // Revocation, and a limit reached.
    expect((await call('DELETE', `/api/v1/api-keys/${id}`, { token: owner.token })).status).toBe(200);
    const limited = await createAccount(t, await createPlan(t, 1, 100));
    const { key: once } = await limited.createKey();
    expect((await call('GET', '/api/v1/public/ping', { key: once })).status).toBe(200);
    expect((await call('GET', '/api/v1/public/ping', { key: once })).status).toBe(429);

    // Sign-out and account deletion, last.
    const leaving = await limited.addUser('DEVELOPER');
    expect((await call('POST', '/api/v1/auth/logout', { token: leaving.token })).status).toBe(204);
    expect((await call('POST', '/api/v1/auth/logout', { token: leaving.token })).status).toBe(401);
    expect((await call('DELETE', '/api/v1/account', { token: limited.owner.token, body: { confirm: 'not its name' } })).status).toBe(400);
    const { name: limitedName } = await t.prisma.account.findUniqueOrThrow({ where: { id: limited.id } });
    expect((await call('DELETE', '/api/v1/account', { token: limited.owner.token, body: { confirm: limitedName } })).status).toBe(204);

    expect(violations).toEqual([]);
    expect(calls).toBeGreaterThan(50);
    expect(refusedByBoth).toBeGreaterThan(5); // the proxy did validate: it saw the bad requests too
  }, 120_000);
});

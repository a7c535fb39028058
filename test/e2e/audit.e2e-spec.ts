import { randomUUID } from 'node:crypto';
import { generateSync } from 'otplib';
import type { Test } from 'supertest';
import { AUDIT_ACTIONS, AuditAction } from '../../src/audit/audit-actions';
import { AUDIT_EXPORT_MAX_ROWS } from '../../src/audit/audit.service';
import { SoftAuthenticator } from '../utils/soft-authenticator';
import {
  createAccount,
  expectError,
  expectRateLimitHeaders,
  insertSignIns,
  startApp,
  TestAccount,
  TestApp,
  TestUser,
} from '../utils/test-app';

interface AuditEvent {
  id: string;
  action: AuditAction;
  actorId: string | null;
  actorEmail: string | null;
  actorName: string | null;
  targetType: string | null;
  targetId: string | null;
  targetName: string | null;
  requestId: string;
  ip: string | null;
  details: Record<string, unknown> | null;
  createdAt: string;
}

interface Expected {
  readonly requestId: string;
  readonly action: AuditAction;
  readonly actorId: string | null;
  readonly actorEmail: string;
  readonly targetType: string;
  readonly targetId: string;
}

/** The loopback addresses the test client connects from: the proxy TRUST_PROXY believes. */
const PROXIES = '127.0.0.1,::1,::ffff:127.0.0.1';
/** The client address step `n` claims through the proxy (TEST-NET-3, RFC 5737). */
const ipOf = (n: number) => `203.0.113.${n}`;

/** The export's columns (docs/API.md, "The audit log as CSV"). */
const COLUMNS = [
  'createdAt',
  'action',
  'actorId',
  'actorEmail',
  'actorName',
  'ip',
  'targetType',
  'targetId',
  'targetName',
  'requestId',
  'details',
] as const;

/** RFC 4180 CSV read into rows of cells: the test's own reader, not the app's writer. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') cell += c;
      else if (text[i + 1] === '"') {
        cell += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) throw new Error(`the CSV does not end with CRLF: ${JSON.stringify(text.slice(-80))}`);
  return rows;
}

/** An event of the list as its CSV row should read (no cell of these starts like a formula). */
const csvRowOf = (e: AuditEvent): string[] =>
  COLUMNS.map((c) => (c === 'details' ? (e.details === null ? '' : JSON.stringify(e.details)) : (e[c] ?? '')));

const NEW_PASSWORD = 'the owner’s new passphrase';
const INVITEE_PASSWORD = 'the invitee’s own passphrase';
const WRONG_PASSWORD = 'a wrong guess at the password';

describe('GET /api/v1/audit-log', () => {
  let t: TestApp;
  let account: TestAccount;
  let admin: TestUser;
  let ownerToken: string;
  /** One per scripted step, in the order they happened. */
  const expected: Expected[] = [];
  /** Ids → what the log should call them once the script is done (a removed member is absent). */
  const namesNow = new Map<string, string>();
  /** Every secret the script handled: none may appear in the audit output. */
  const secrets: string[] = [];
  let startedAt: number;
  let finishedAt: number;
  const run = randomUUID().slice(0, 8);
  const rid = (n: number | '') => `audit-test-${run}-${n}`;

  const auditLog = (query = '', token = ownerToken): Test =>
    t.http.get(`/api/v1/audit-log${query}`).set('Authorization', `Bearer ${token}`);
  const exportCsv = (query = '', token = ownerToken): Test =>
    t.http.get(`/api/v1/audit-log/export.csv${query}`).set('Authorization', `Bearer ${token}`);
  const all = async (query = ''): Promise<AuditEvent[]> => {
    const res = await auditLog(`?limit=200${query}`);
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    return res.body.data;
  };

  beforeAll(async () => {
    t = await startApp({ TRUST_PROXY: PROXIES });
    account = await createAccount(t);
    admin = await account.addUser('ADMIN');
    const owner = account.owner;
    secrets.push(owner.token, admin.token, owner.password, NEW_PASSWORD, INVITEE_PASSWORD, WRONG_PASSWORD);
    startedAt = Date.now();

    /** One scripted request: its own X-Request-Id, kept by the app, and the expected status. */
    const step = async (n: number, req: Test, status: number) => {
      const res = await req.set('X-Request-Id', rid(n)).set('X-Forwarded-For', ipOf(n));
      if (res.status !== status) throw new Error(`step ${n}: ${res.status} ${JSON.stringify(res.body)}`);
      if (res.headers['x-request-id'] !== rid(n)) throw new Error(`step ${n}: X-Request-Id ${res.headers['x-request-id']}`);
      return res;
    };
    const as = (user: { token: string }) => ({ Authorization: `Bearer ${user.token}` });
    const expect_ = (n: number, action: AuditAction, actor: { id: string | null; email: string }, targetType: string, targetId: string) =>
      expected.push({ requestId: rid(n), action, actorId: actor.id, actorEmail: actor.email, targetType, targetId });

    const login = await step(1, t.http.post('/api/v1/auth/login').send({ email: owner.email, password: owner.password }), 200);
    secrets.push(login.body.token);
    expect_(1, 'auth.login', owner, 'user', owner.id);

    await step(2, t.http.post('/api/v1/auth/login').send({ email: owner.email, password: WRONG_PASSWORD }), 401);
    expect_(2, 'auth.login_failed', { id: null, email: owner.email }, 'user', owner.id);

    const created = await step(
      3,
      t.http
        .post('/api/v1/api-keys')
        .set(as(owner))
        .send({ name: 'audited key', allowedOrigins: ['https://shop.example.com'] }),
      201,
    );
    const keyId: string = created.body.id;
    secrets.push(created.body.key);
    expect_(3, 'api_key.created', owner, 'api_key', keyId);

    await step(
      4,
      t.http
        .patch(`/api/v1/api-keys/${keyId}`)
        .set(as(admin))
        .send({ name: 'renamed key', scopes: ['verify'] }),
      200,
    );
    expect_(4, 'api_key.updated', admin, 'api_key', keyId);

    const rotated = await step(5, t.http.post(`/api/v1/api-keys/${keyId}/rotate`).set(as(owner)).send({ gracePeriodSeconds: 60 }), 200);
    secrets.push(rotated.body.key);
    expect_(5, 'api_key.rotated', owner, 'api_key', keyId);

    await step(6, t.http.delete(`/api/v1/api-keys/${keyId}`).set(as(admin)), 200);
    expect_(6, 'api_key.revoked', admin, 'api_key', keyId);
    const keyRow = await t.prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } });
    secrets.push(keyRow.hash, ...(keyRow.previousHash !== null ? [keyRow.previousHash] : []));

    const inviteeEmail = `audited-invitee-${randomUUID()}@example.com`;
    const invitation = await step(
      7,
      t.http.post('/api/v1/team/invitations').set(as(admin)).send({ email: inviteeEmail, role: 'DEVELOPER' }),
      201,
    );
    secrets.push(invitation.body.token);
    expect_(7, 'team.invitation_created', admin, 'invitation', invitation.body.id);

    const accepted = await step(
      8,
      t.http.post('/api/v1/auth/invitations/accept').send({ token: invitation.body.token, password: INVITEE_PASSWORD }),
      200,
    );
    secrets.push(accepted.body.token);
    const invitee = await t.prisma.user.findUniqueOrThrow({ where: { email: inviteeEmail } });
    secrets.push(invitee.passwordHash);
    expect_(8, 'team.invitation_accepted', { id: invitee.id, email: inviteeEmail }, 'invitation', invitation.body.id);

    await step(9, t.http.patch(`/api/v1/team/members/${invitee.id}`).set(as(owner)).send({ role: 'ANALYST' }), 200);
    expect_(9, 'team.role_changed', owner, 'user', invitee.id);

    await step(10, t.http.delete(`/api/v1/team/members/${invitee.id}`).set(as(admin)), 204);
    expect_(10, 'team.member_removed', admin, 'user', invitee.id);

    await step(
      11,
      t.http
        .patch('/api/v1/account')
        .set(as(admin))
        .send({ name: `Audited ${run}` }),
      200,
    );
    expect_(11, 'account.updated', admin, 'account', account.id);

    await step(12, t.http.put('/api/v1/account/plan').set(as(owner)).send({ plan: 'pro' }), 200);
    expect_(12, 'account.plan_changed', owner, 'account', account.id);

    const revocable = await step(
      13,
      t.http
        .post('/api/v1/team/invitations')
        .set(as(admin))
        .send({ email: `revoked-${randomUUID()}@example.com`, role: 'ANALYST' }),
      201,
    );
    secrets.push(revocable.body.token);
    expect_(13, 'team.invitation_created', admin, 'invitation', revocable.body.id);
    await step(14, t.http.delete(`/api/v1/team/invitations/${revocable.body.id}`).set(as(admin)), 204);
    expect_(14, 'team.invitation_revoked', admin, 'invitation', revocable.body.id);

    const ownerRow = await t.prisma.user.findUniqueOrThrow({ where: { id: owner.id } });
    secrets.push(ownerRow.passwordHash);
    const changed = await step(
      15,
      t.http.put('/api/v1/auth/password').set(as(owner)).send({ currentPassword: owner.password, newPassword: NEW_PASSWORD }),
      200,
    );
    ownerToken = changed.body.token;
    secrets.push(ownerToken);
    expect_(15, 'auth.password_changed', owner, 'user', owner.id);

    const leaving = await account.addUser('DEVELOPER');
    await step(16, t.http.post('/api/v1/auth/logout').set(as(leaving)), 204);
    expect_(16, 'auth.logout', leaving, 'user', leaving.id);

    const forgetful = await account.addUser('ANALYST');
    const reset = await step(17, t.http.post(`/api/v1/team/members/${forgetful.id}/password-reset`).set(as(admin)), 201);
    secrets.push(reset.body.token);
    expect_(17, 'team.password_reset_issued', admin, 'user', forgetful.id);
    const afterReset = await step(
      18,
      t.http.post('/api/v1/auth/password-reset/accept').send({ token: reset.body.token, newPassword: NEW_PASSWORD }),
      200,
    );
    secrets.push(afterReset.body.token);
    expect_(18, 'auth.password_reset', forgetful, 'user', forgetful.id);
    // The reset's sign-in is the member's one session: ending their sessions ends it.
    await step(19, t.http.delete(`/api/v1/team/members/${forgetful.id}/sessions`).set(as(admin)), 204);
    expect_(19, 'auth.session_ended', admin, 'user', forgetful.id);

    // Second factors: the admin turns on an authenticator app, signs in with a recovery code, renews
    // the codes and turns the app off; the owner adds a passkey, requires a second factor of every
    // member and no longer, and removes the passkey.
    const { secret } = (await step(20, t.http.post('/api/v1/auth/mfa/totp').set(as(admin)), 201)).body as { secret: string };
    const enrolled = await step(
      21,
      t.http
        .post('/api/v1/auth/mfa/totp/confirm')
        .set(as(admin))
        .send({ code: generateSync({ secret }) }),
      200,
    );
    secrets.push(secret, ...(enrolled.body.recoveryCodes as string[]));
    expect_(21, 'auth.mfa_enabled', admin, 'user', admin.id);
    const mfaStep = await step(22, t.http.post('/api/v1/auth/login').send({ email: admin.email, password: admin.password }), 200);
    secrets.push(mfaStep.body.mfaToken);
    const recovered = await step(
      23,
      t.http.post('/api/v1/auth/login/mfa').send({ mfaToken: mfaStep.body.mfaToken, code: enrolled.body.recoveryCodes[0] }),
      200,
    );
    secrets.push(recovered.body.token);
    expect_(23, 'auth.recovery_code_used', admin, 'user', admin.id);
    expect_(23, 'auth.login', admin, 'user', admin.id);
    const renewed = await step(24, t.http.post('/api/v1/auth/mfa/recovery-codes').set(as(admin)).send({ password: admin.password }), 201);
    secrets.push(...(renewed.body.recoveryCodes as string[]));
    expect_(24, 'auth.recovery_codes_regenerated', admin, 'user', admin.id);
    const asOwner = { Authorization: `Bearer ${ownerToken}` };
    const passkeyOptions = await step(25, t.http.post('/api/v1/auth/passkeys/registration-options').set(asOwner), 200);
    const authenticator = new SoftAuthenticator(t.config.serviceOrigins[0]);
    const passkey = await step(
      26,
      t.http
        .post('/api/v1/auth/passkeys')
        .set(asOwner)
        .send({ response: authenticator.create(passkeyOptions.body) }),
      201,
    );
    expect_(26, 'auth.passkey_added', owner, 'user', owner.id);
    await step(27, t.http.patch('/api/v1/account').set(asOwner).send({ requireMfa: true }), 200);
    expect_(27, 'account.mfa_requirement_changed', owner, 'account', account.id);
    await step(28, t.http.delete('/api/v1/auth/mfa/totp').set(as(admin)).send({ password: admin.password }), 204);
    expect_(28, 'auth.mfa_disabled', admin, 'user', admin.id);
    await step(29, t.http.patch('/api/v1/account').set(asOwner).send({ requireMfa: false }), 200);
    expect_(29, 'account.mfa_requirement_changed', owner, 'account', account.id);
    await step(30, t.http.delete(`/api/v1/auth/passkeys/${passkey.body.id}`).set(asOwner).send({ password: NEW_PASSWORD }), 204);
    expect_(30, 'auth.passkey_removed', owner, 'user', owner.id);
    finishedAt = Date.now();
    for (const user of [owner, admin, leaving, forgetful]) namesNow.set(user.id, user.email);
    namesNow.set(keyId, 'renamed key');
    namesNow.set(invitation.body.id, inviteeEmail);
    namesNow.set(revocable.body.id, revocable.body.email);
    namesNow.set(account.id, `Audited ${run}`);
  }, 60_000);
  afterAll(() => t.close());

  it('records every action of the script once, with actor id, target, the request id and client IP of its cause, and time', async () => {
    const res = await auditLog('?limit=200');
    expect(res.status).toBe(200);
    expectRateLimitHeaders(res);
    expect(res.body).toEqual({ data: expect.any(Array), nextCursor: null });
    const events: AuditEvent[] = res.body.data;
    // account.created opens a new account's log (sign-up: test/e2e/signup.e2e-spec.ts), the webhook.* actions are
    // checked beside the deliveries that cause them (test/e2e/webhooks.e2e-spec.ts); every other action is in this script.
    expect(new Set(expected.map((e) => e.action))).toEqual(
      new Set(AUDIT_ACTIONS.filter((a) => a !== 'account.created' && !a.startsWith('webhook.'))),
    );
    // Exactly the script's events: one per step, two for the sign-in with a recovery code.
    const ours = events.filter((ev) => ev.requestId.startsWith(rid('')));
    expect(ours.map((ev) => `${ev.requestId} ${ev.action}`).sort()).toEqual(expected.map((e) => `${e.requestId} ${e.action}`).sort());
    for (const e of expected) {
      const found = events.filter((ev) => ev.requestId === e.requestId && ev.action === e.action);
      // actorEmail is checked here where the script knows it at once; for every event by "names the actor by email on every event".
      const emailChecked = e.action === 'auth.login' || e.action === 'auth.login_failed' || e.action === 'team.invitation_accepted';
      const shown = found.map(({ details, actorEmail, actorName: _a, targetName: _t, ...rest }) => ({
        ...rest,
        ...(emailChecked && { actorEmail }),
        details: details === null ? null : typeof details,
      }));
      expect({ requestId: e.requestId, found: shown }).toEqual({
        requestId: e.requestId,
        found: [
          {
            id: expect.any(String),
            action: e.action,
            actorId: e.actorId,
            ...(emailChecked && { actorEmail: e.actorEmail }),
            targetType: e.targetType,
            targetId: e.targetId,
            requestId: e.requestId,
            ip: ipOf(Number(e.requestId.split('-').pop())),
            details: found[0]?.details === null ? null : 'object',
            createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
          },
        ],
      });
      const at = Date.parse(found[0].createdAt);
      expect(at).toBeGreaterThanOrEqual(startedAt - 5_000);
      expect(at).toBeLessThanOrEqual(finishedAt + 5_000);
    }
    // What the key was made with, its allowed origins included; never its secret (checked above for every event).
    expect(events.find((ev) => ev.requestId === rid(3))?.details).toEqual({
      name: 'audited key',
      scopes: ['widget', 'verify', 'public'],
      allowedOrigins: ['https://shop.example.com'],
    });
    expect(events.find((ev) => ev.requestId === rid(12))?.details).toEqual({ from: 'free', to: 'pro' });
    expect(events.find((ev) => ev.requestId === rid(19))?.details).toEqual({ sessionId: expect.any(String), by: 'admin' });
  });

  it('names the actor by email on every event, not only on logins', async () => {
    const events = await all();
    const actual = expected.map((e) => ({ action: e.action, actorEmail: events.find((ev) => ev.requestId === e.requestId)?.actorEmail }));
    expect(actual).toEqual(expected.map((e) => ({ action: e.action, actorEmail: e.actorEmail })));
  });

  it("names actor and target as the account knows them now: emails, the key's current name, the account's; null once removed", async () => {
    const events = await all();
    const actual = expected.map((e) => {
      const found = events.find((ev) => ev.requestId === e.requestId);
      return { step: e.requestId, actorName: found?.actorName, targetName: found?.targetName };
    });
    expect(actual).toEqual(
      expected.map((e) => ({
        step: e.requestId,
        actorName: (e.actorId !== null && namesNow.get(e.actorId)) || null,
        targetName: namesNow.get(e.targetId) ?? null,
      })),
    );
    // The removed invitee: known by id (and the email recorded at the time), no longer by a current name.
    const accepted = events.find((ev) => ev.requestId === rid(8))!;
    expect(accepted).toMatchObject({
      actorId: expect.any(String),
      actorEmail: expect.stringContaining('audited-invitee-'),
      actorName: null,
    });
    expect(events.find((ev) => ev.requestId === rid(10))).toMatchObject({ targetType: 'user', targetName: null });
    // The key was renamed at step 4: its events from before the rename name it as it is now.
    expect(events.find((ev) => ev.requestId === rid(3))?.targetName).toBe('renamed key');
  });

  it('filters by actor, a removed member included', async () => {
    const byActor = new Map<string, string[]>();
    for (const e of expected) if (e.actorId !== null) byActor.set(e.actorId, [...(byActor.get(e.actorId) ?? []), e.requestId]);
    expect(byActor.size).toBeGreaterThan(3);
    for (const [actorId, requestIds] of byActor) {
      const events = await all(`&actorId=${actorId}`);
      expect(events.map((ev) => ev.actorId)).toEqual(events.map(() => actorId));
      expect(events.map((ev) => ev.requestId).sort()).toEqual([...requestIds].sort());
    }
    expect(await all(`&actorId=${randomUUID()}`)).toEqual([]);
    const both = await all(`&actorId=${admin.id}&action=api_key.revoked`);
    expect(both.map((e) => e.requestId)).toEqual([rid(6)]);
  });

  it('lists newest first', async () => {
    const events = await all();
    const times = events.map((e) => Date.parse(e.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const ours = events.filter((e) => e.requestId.startsWith(`audit-test-${run}-`));
    const order = ours.map((e) => Number(e.requestId.split('-').pop()));
    // Events of one millisecond may tie; every other pair follows the script backwards (a sign-in
    // with a recovery code records two events of one step).
    for (let i = 1; i < ours.length; i++) {
      if (ours[i - 1].createdAt !== ours[i].createdAt) expect(order[i - 1]).toBeGreaterThanOrEqual(order[i]);
    }
    expect(order[0]).toBe(30);
    expect(order[order.length - 1]).toBe(1);
  });

  it('never shows a secret: API key secrets and hashes, the invitation token, passwords and their hashes, JWTs', async () => {
    const text = JSON.stringify(await all());
    expect(secrets.filter((s) => s.length >= 8 && text.includes(s))).toEqual([]);
    expect(text).not.toMatch(/\$argon2/);
    expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
    expect(text).not.toContain('ghi_');
    const csv = (await exportCsv().expect(200)).text;
    expect(secrets.filter((s) => s.length >= 8 && csv.includes(s))).toEqual([]);
    expect(csv).not.toMatch(/\$argon2|eyJ[\w-]+\.[\w-]+\.[\w-]+|ghi_/);
  });

  it('filters by action', async () => {
    for (const e of expected) {
      const events = await all(`&action=${e.action}`);
      expect(events.map((ev) => ev.action)).toEqual(events.map(() => e.action));
      expect(events.map((ev) => ev.requestId)).toContain(e.requestId);
    }
  });

  it('filters by time: from is inclusive, to is exclusive', async () => {
    const events = await all();
    const ascending = [...events].reverse();
    const from = ascending[3].createdAt;
    const to = ascending[ascending.length - 3].createdAt;
    const inWindow = (lo: string | undefined, hi: string | undefined) =>
      events
        .filter(
          (e) =>
            (lo === undefined || Date.parse(e.createdAt) >= Date.parse(lo)) &&
            (hi === undefined || Date.parse(e.createdAt) < Date.parse(hi)),
        )
        .map((e) => e.id);
    expect((await all(`&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`)).map((e) => e.id)).toEqual(inWindow(from, to));
    expect((await all(`&from=${encodeURIComponent(from)}`)).map((e) => e.id)).toEqual(inWindow(from, undefined));
    expect((await all(`&to=${encodeURIComponent(to)}`)).map((e) => e.id)).toEqual(inWindow(undefined, to));
    expect(inWindow(from, to).length).toBeGreaterThan(0);
    expect(await all(`&from=${encodeURIComponent(new Date(finishedAt + 3_600_000).toISOString())}`)).toEqual([]);
    expect(await all(`&from=${from}&to=${from}`)).toEqual([]);
    const both = await all(`&action=api_key.updated&from=${encodeURIComponent(new Date(startedAt - 60_000).toISOString())}`);
    expect(both.map((e) => e.requestId)).toEqual([rid(4)]);
  });

  it('walks every event exactly once with limit=3 and the cursor', async () => {
    const everything = (await all()).map((e) => e.id);
    expect(everything.length).toBeGreaterThan(3);
    const walked: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await auditLog(`?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      walked.push(...res.body.data.map((e: AuditEvent) => e.id));
      cursor = res.body.nextCursor;
      if (cursor !== null) expect(res.body.data).toHaveLength(3);
      pages++;
      expect(pages).toBeLessThan(100);
    } while (cursor !== null);
    expect(walked).toEqual(everything);
    expect(new Set(walked).size).toBe(walked.length);
    expect(pages).toBe(Math.ceil(everything.length / 3));
  });

  it('walks a filtered list with the cursor too', async () => {
    const everything = (await all('&action=api_key.created')).map((e) => e.id);
    const first = await auditLog('?limit=1&action=api_key.created').expect(200);
    expect(first.body.data.map((e: AuditEvent) => e.id)).toEqual(everything.slice(0, 1));
    if (everything.length === 1) expect(first.body.nextCursor).toBeNull();
  });

  describe('as CSV (GET /api/v1/audit-log/export.csv)', () => {
    it('downloads every event as an attachment, streamed, with the rate-limit headers: a header row, then the rows the list shows', async () => {
      const res = await exportCsv();
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="audit-log-${new Date().toISOString().slice(0, 10)}.csv"`);
      expect(res.headers['cache-control']).toBe('no-store');
      // Streamed: sent in chunks as it is read, its length unknown when it starts.
      expect(res.headers['transfer-encoding']).toBe('chunked');
      expect(res.headers['content-length']).toBeUndefined();
      expectRateLimitHeaders(res);
      const [header, ...rows] = parseCsv(res.text);
      expect(header).toEqual([...COLUMNS]);
      expect(rows).toEqual((await all()).map(csvRowOf));
      expect(rows.length).toBeGreaterThanOrEqual(expected.length);
      const changed = rows.find((r) => r[COLUMNS.indexOf('requestId')] === rid(12))!;
      expect(JSON.parse(changed[COLUMNS.indexOf('details')])).toEqual({ from: 'free', to: 'pro' });
      expect(changed[COLUMNS.indexOf('ip')]).toBe(ipOf(12));
      expect(changed[COLUMNS.indexOf('targetName')]).toBe(`Audited ${run}`);
    });

    it('exports only the filtered range: action, actor, from and to as the list reads them', async () => {
      const ascending = (await all()).reverse();
      const from = encodeURIComponent(ascending[2].createdAt);
      const to = encodeURIComponent(ascending[ascending.length - 2].createdAt);
      const filters = [
        'action=api_key.updated',
        `actorId=${admin.id}`,
        `actorId=${admin.id}&action=team.invitation_created`,
        `from=${from}&to=${to}`,
        `from=${from}`,
        `to=${to}`,
        `actorId=${randomUUID()}`,
      ];
      for (const filter of filters) {
        const [header, ...rows] = parseCsv((await exportCsv(`?${filter}`).expect(200)).text);
        expect({ filter, header, rows }).toEqual({ filter, header: [...COLUMNS], rows: (await all(`&${filter}`)).map(csvRowOf) });
      }
    });

    it('defuses cells a spreadsheet would run as a formula, and quotes commas, quotes and line breaks', async () => {
      const other = await createAccount(t);
      const names = ['=HYPERLINK("https://evil.example","open")', '+1+2', '-2+3', '@SUM(A1:A9)', 'plain, "quoted"\nsecond line'];
      for (const name of names) await other.createKey({ name });
      const res = await t.http
        .get('/api/v1/audit-log/export.csv?action=api_key.created')
        .set('Authorization', `Bearer ${other.owner.token}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain(`"'=HYPERLINK(""https://evil.example"",""open"")"`);
      const [, ...rows] = parseCsv(res.text);
      const shown = rows.map((r) => r[COLUMNS.indexOf('targetName')]).sort();
      expect(shown).toEqual(
        ["'+1+2", "'-2+3", '\'=HYPERLINK("https://evil.example","open")', "'@SUM(A1:A9)", 'plain, "quoted"\nsecond line'].sort(),
      );
      // No cell starts a formula, whatever its column.
      expect(rows.flat().filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);
    });

    it.each([
      ['a bad from', '?from=yesterday'],
      ['from after to', '?from=2025-02-01T00:00:00Z&to=2025-01-01T00:00:00Z'],
      ['an unknown action', '?action=auth.signed_in'],
      ['an actorId that is no id', '?actorId=12345'],
      ['a cursor (the export is never paged)', '?cursor=abc'],
      ['a limit', '?limit=10'],
      ['an unknown parameter', '?format=xlsx'],
    ])('answers 400 validation_failed, in JSON, for %s', async (_, query) => {
      const res = await exportCsv(query);
      expectError(res, 400, 'validation_failed');
      expect(res.body.details).toEqual(expect.any(Array));
      expect(res.headers['content-disposition']).toBeUndefined();
      expectRateLimitHeaders(res);
    });

    it.each(['DEVELOPER', 'ANALYST'] as const)('answers 403 insufficient_permissions to a %s', async (role) => {
      const user = await account.addUser(role);
      const res = await exportCsv('', user.token);
      expectError(res, 403, 'insufficient_permissions');
      expectRateLimitHeaders(res);
      expect(res.text).not.toContain(rid(1));
    });

    it('answers 401 without a token, and lets an ADMIN export', async () => {
      expectError(await t.http.get('/api/v1/audit-log/export.csv'), 401, 'missing_credentials');
      const res = await exportCsv('', admin.token);
      expect(res.status).toBe(200);
      expect(parseCsv(res.text).length - 1).toBe((await all()).length);
    });

    it(`holds at most ${AUDIT_EXPORT_MAX_ROWS} events: a range with more is refused before anything is sent, a narrower one is exported whole`, async () => {
      const big = await createAccount(t);
      // AUDIT_EXPORT_MAX_ROWS + 1 events, one a second back from a fixed time, the oldest first.
      await insertSignIns(t, big, AUDIT_EXPORT_MAX_ROWS + 1);
      // Statistics, as autovacuum (PostgreSQL) and EmbeddedVacuum (PGlite) keep them on a log that grew over time.
      await t.prisma.$executeRawUnsafe('ANALYZE "AuditEvent"');
      const as = (q: string) => t.http.get(`/api/v1/audit-log/export.csv${q}`).set('Authorization', `Bearer ${big.owner.token}`);
      const refused = await as('');
      expectError(refused, 400, 'validation_failed');
      expect(refused.body.message).toContain(String(AUDIT_EXPORT_MAX_ROWS));
      expectRateLimitHeaders(refused);
      // Without the oldest event (n = MAX + 1), exactly the bound: exported whole, in order.
      const oldest = new Date(Date.UTC(2026, 0, 1) - (AUDIT_EXPORT_MAX_ROWS + 1) * 1000);
      const started = Date.now();
      const res = await as(`?from=${encodeURIComponent(new Date(oldest.getTime() + 1).toISOString())}`);
      const ms = Date.now() - started;
      expect(res.status).toBe(200);
      const [header, ...rows] = parseCsv(res.text);
      expect(header).toEqual([...COLUMNS]);
      expect(rows).toHaveLength(AUDIT_EXPORT_MAX_ROWS);
      const ids = rows.map((r) => r[COLUMNS.indexOf('requestId')]);
      expect(ids[0]).toBe('bulk-1');
      expect(ids[ids.length - 1]).toBe(`bulk-${AUDIT_EXPORT_MAX_ROWS}`);
      expect(new Set(ids).size).toBe(AUDIT_EXPORT_MAX_ROWS);
      expect(rows[0][COLUMNS.indexOf('actorName')]).toBe(big.owner.email);
      console.log(`audit export: ${AUDIT_EXPORT_MAX_ROWS} rows, ${res.text.length} bytes in ${ms} ms`);
    }, 120_000);
  });

  it.each([
    ['a cursor that is no nextCursor', '?cursor=garbage'],
    ['a cursor with forbidden characters', '?cursor=%25%25%25'],
    ['a cursor with a bad date', `?cursor=${Buffer.from(`not-a-date|${randomUUID()}`).toString('base64url')}`],
    ['a too long cursor', `?cursor=${'a'.repeat(201)}`],
    ['a bad from', '?from=yesterday'],
    ['an impossible from', '?from=2024-13-45T00:00:00Z'],
    ['a bad to', '?to=12345abc'],
    ['from after to', `?from=2025-02-01T00:00:00Z&to=2025-01-01T00:00:00Z`],
    ['limit 0', '?limit=0'],
    ['limit 201', '?limit=201'],
    ['a non-integer limit', '?limit=2.5'],
    ['a non-numeric limit', '?limit=ten'],
    ['an unknown action', '?action=auth.signed_in'],
    ['an action in the wrong case', '?action=AUTH.LOGIN'],
    ['an unknown parameter', '?actor=someone'],
    ['an actorId that is no id', '?actorId=someone'],
    ['an actorId with a NUL', '?actorId=%00'],
  ])('answers 400 validation_failed for %s', async (_, query) => {
    const res = await auditLog(query);
    expectError(res, 400, 'validation_failed');
    expect(res.body.details).toEqual(expect.any(Array));
    expectRateLimitHeaders(res);
  });

  it('accepts the edges: limit 1 and 200, from equal to to', async () => {
    expect((await auditLog('?limit=1').expect(200)).body.data).toHaveLength(1);
    await auditLog('?limit=200').expect(200);
    await auditLog('?from=2025-01-01T00:00:00Z&to=2025-01-01T00:00:00Z').expect(200);
  });

  it.each(['DEVELOPER', 'ANALYST'] as const)('answers 403 insufficient_permissions to a %s', async (role) => {
    const user = await account.addUser(role);
    const res = await auditLog('', user.token);
    expectError(res, 403, 'insufficient_permissions');
    expectRateLimitHeaders(res);
    expect(JSON.stringify(res.body)).not.toContain(rid(1));
  });

  it('lets an ADMIN read it', async () => {
    const res = await auditLog('?limit=200', admin.token);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: AuditEvent) => e.requestId)).toEqual(expect.arrayContaining(expected.map((e) => e.requestId)));
  });

  it("keeps each account's events to itself, even under the same request id", async () => {
    const other = await createAccount(t);
    await t.http
      .patch('/api/v1/account')
      .set('Authorization', `Bearer ${other.owner.token}`)
      .set('X-Request-Id', rid(11))
      .send({ name: 'Other' })
      .expect(200);
    const theirs = await t.http.get('/api/v1/audit-log?limit=200').set('Authorization', `Bearer ${other.owner.token}`).expect(200);
    expect(theirs.body.data).toEqual([expect.objectContaining({ action: 'account.updated', requestId: rid(11), targetId: other.id })]);
    const ours = await all();
    const ourIds = ours.map((e) => e.id);
    expect(theirs.body.data.filter((e: AuditEvent) => ourIds.includes(e.id))).toEqual([]);
    expect(ours.filter((e) => e.requestId === rid(11))).toEqual([expect.objectContaining({ targetId: account.id })]);
    for (const action of AUDIT_ACTIONS) {
      const filtered = await t.http
        .get(`/api/v1/audit-log?action=${action}`)
        .set('Authorization', `Bearer ${other.owner.token}`)
        .expect(200);
      expect(filtered.body.data.filter((e: AuditEvent) => e.requestId.startsWith(`audit-test-${run}-`) && e.targetId !== other.id)).toEqual(
        [],
      );
    }
  });
});

describe('the audit log without TRUST_PROXY', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('records the socket address, not an X-Forwarded-For nobody vouches for', async () => {
    const account = await createAccount(t);
    await t.http
      .post('/api/v1/auth/login')
      .set('X-Forwarded-For', '203.0.113.99')
      .send({ email: account.owner.email, password: account.owner.password })
      .expect(200);
    const res = await t.http.get('/api/v1/audit-log').set('Authorization', `Bearer ${account.owner.token}`).expect(200);
    expect(res.body.data.map((e: AuditEvent) => ({ action: e.action, ip: e.ip }))).toEqual([
      { action: 'auth.login', ip: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$|^::1$/) },
    ]);
  });
});

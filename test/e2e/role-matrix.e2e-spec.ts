import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { ROLES, Role } from '../../src/common/principal';
import { createAccount, expectError, expectRateLimitHeaders, startApp, TestAccount, TestApp, TestUser } from '../utils/test-app';
import { documentedRoutes } from './shared/routes';

/**
 * docs/API.md, "JWT endpoints", transcribed: one row per method and path, ✓ where the role may call.
 * (The contract's "GET /api-keys, /api-keys/:id" row is written as its two paths.) The login row
 * is not a JWT route; it is covered by the security suite.
 */
// prettier-ignore
const MATRIX: ReadonlyArray<readonly [method: string, path: string, owner: '✓' | '', admin: '✓' | '', developer: '✓' | '', analyst: '✓' | '']> = [
  //  Method    Path                                   OWNER ADMIN DEVELOPER ANALYST
  ['GET',    '/api/v1/auth/me',                       '✓',  '✓',  '✓',  '✓'],
  ['PUT',    '/api/v1/auth/password',                 '✓',  '✓',  '✓',  '✓'],
  ['POST',   '/api/v1/auth/logout',                   '✓',  '✓',  '✓',  '✓'],
  ['GET',    '/api/v1/auth/mfa',                      '✓',  '✓',  '✓',  '✓'],
  ['POST',   '/api/v1/auth/mfa/totp',                 '✓',  '✓',  '✓',  '✓'],
  ['POST',   '/api/v1/auth/mfa/totp/confirm',         '✓',  '✓',  '✓',  '✓'],
  ['DELETE', '/api/v1/auth/mfa/totp',                 '✓',  '✓',  '✓',  '✓'],
  ['POST',   '/api/v1/auth/mfa/recovery-codes',       '✓',  '✓',  '✓',  '✓'],
  ['POST',   '/api/v1/auth/passkeys/registration-options', '✓', '✓', '✓', '✓'],
  ['POST',   '/api/v1/auth/passkeys',                 '✓',  '✓',  '✓',  '✓'],
  ['GET',    '/api/v1/auth/passkeys',                 '✓',  '✓',  '✓',  '✓'],
  ['PATCH',  '/api/v1/auth/passkeys/:id',             '✓',  '✓',  '✓',  '✓'],
  ['DELETE', '/api/v1/auth/passkeys/:id',             '✓',  '✓',  '✓',  '✓'],
  ['GET',    '/api/v1/auth/sessions',                 '✓',  '✓',  '✓',  '✓'],
  ['DELETE', '/api/v1/auth/sessions/:id',             '✓',  '✓',  '✓',  '✓'],
  ['GET',    '/api/v1/plans',                         '✓',  '✓',  '✓',  '✓'],
  ['GET',    '/api/v1/account',                       '✓',  '✓',  '✓',  '✓'],
  ['PATCH',  '/api/v1/account',                       '✓',  '✓',  '',   ''],
  ['PUT',    '/api/v1/account/plan',                  '✓',  '',   '',   ''],
  ['DELETE', '/api/v1/account',                       '✓',  '',   '',   ''],
  ['GET',    '/api/v1/api-keys',                      '✓',  '✓',  '✓',  ''],
  ['GET',    '/api/v1/api-keys/:id',                  '✓',  '✓',  '✓',  ''],
  ['POST',   '/api/v1/api-keys',                      '✓',  '✓',  '✓',  ''],
  ['PATCH',  '/api/v1/api-keys/:id',                  '✓',  '✓',  '✓',  ''],
  ['DELETE', '/api/v1/api-keys/:id',                  '✓',  '✓',  '✓',  ''],
  ['POST',   '/api/v1/api-keys/:id/rotate',           '✓',  '✓',  '✓',  ''],
  ['GET',    '/api/v1/team/members',                  '✓',  '✓',  '✓',  '✓'],
  ['POST',   '/api/v1/team/invitations',              '✓',  '✓',  '',   ''],
  ['PATCH',  '/api/v1/team/members/:userId',          '✓',  '✓',  '',   ''],
  ['DELETE', '/api/v1/team/members/:userId',          '✓',  '✓',  '',   ''],
  ['POST',   '/api/v1/team/members/:userId/password-reset', '✓', '✓', '', ''],
  ['DELETE', '/api/v1/team/members/:userId/sessions', '✓',  '✓',  '',   ''],
  ['GET',    '/api/v1/team/invitations',              '✓',  '✓',  '',   ''],
  ['DELETE', '/api/v1/team/invitations/:id',          '✓',  '✓',  '',   ''],
  ['GET',    '/api/v1/analytics/usage',               '✓',  '✓',  '✓',  '✓'],
  ['GET',    '/api/v1/analytics/widget',              '✓',  '✓',  '✓',  '✓'],
  ['GET',    '/api/v1/analytics/widget/effort',       '✓',  '✓',  '✓',  '✓'],
  ['GET',    '/api/v1/audit-log',                     '✓',  '✓',  '',   ''],
  ['GET',    '/api/v1/audit-log/export.csv',          '✓',  '✓',  '',   ''],
  ['GET',    '/api/v1/webhooks',                      '✓',  '✓',  '✓',  ''],
  ['POST',   '/api/v1/webhooks',                      '✓',  '✓',  '✓',  ''],
  ['GET',    '/api/v1/webhooks/:id',                  '✓',  '✓',  '✓',  ''],
  ['PATCH',  '/api/v1/webhooks/:id',                  '✓',  '✓',  '✓',  ''],
  ['DELETE', '/api/v1/webhooks/:id',                  '✓',  '✓',  '✓',  ''],
  ['POST',   '/api/v1/webhooks/:id/rotate-secret',    '✓',  '✓',  '✓',  ''],
  ['POST',   '/api/v1/webhooks/:id/test',             '✓',  '✓',  '✓',  ''],
  ['GET',    '/api/v1/webhooks/:id/deliveries',       '✓',  '✓',  '✓',  ''],
  ['POST',   '/api/v1/webhooks/:id/deliveries/:deliveryId/retry', '✓', '✓', '✓', ''],
];

interface Row {
  readonly method: string;
  readonly path: string;
  readonly roles: readonly Role[];
}

const ROWS: Row[] = MATRIX.map(([method, path, ...marks]) => ({ method, path, roles: ROLES.filter((_, i) => marks[i] === '✓') }));
const name = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/** What one call of a row needs: its URL (ids filled), a body, and a check that a refused call changed nothing. */
interface Prepared {
  readonly url: string;
  readonly body?: object;
  readonly unchanged?: () => Promise<void>;
}

describe('the role matrix (docs/API.md, "JWT endpoints")', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  }, 60_000);
  afterAll(() => t.close());

  const send = (method: string, url: string, token: string, body?: object): Promise<Response> => {
    const req = t.http[method.toLowerCase() as 'get'](url).set('Authorization', `Bearer ${token}`);
    return body === undefined ? req : req.send(body);
  };

  /** A sensible call of `row` by `caller` (a member of `account`), on targets made for this call only. */
  async function prepare(row: Row, account: TestAccount, caller: TestUser): Promise<{ caller: TestUser } & Prepared> {
    const keyRoute = async (suffix = '', body?: object): Promise<Prepared> => {
      const key = await account.createKey();
      const before = await t.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } });
      return {
        url: `/api/v1/api-keys/${key.id}${suffix}`,
        body,
        unchanged: async () => expect(await t.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).toEqual(before),
      };
    };
    const memberRoute = async (body?: object): Promise<Prepared> => {
      const target = await account.addUser('DEVELOPER');
      return {
        url: `/api/v1/team/members/${target.id}`,
        body,
        unchanged: async () => expect(await t.prisma.user.findUnique({ where: { id: target.id } })).toMatchObject({ role: 'DEVELOPER' }),
      };
    };
    /** An endpoint of the account (no event goes to it: it has none subscribed but webhook.test). */
    const webhookRoute = async (suffix: string, body?: object): Promise<Prepared & { id: string }> => {
      const hook = await t.prisma.webhookEndpoint.create({
        data: {
          accountId: account.id,
          url: 'https://93.184.215.14/m',
          events: ['webhook.test'],
          secret: 'whsec_c2VjcmV0',
          createdById: account.owner.id,
        },
      });
      const before = await t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: hook.id } });
      return {
        id: hook.id,
        url: `/api/v1/webhooks/${hook.id}${suffix}`,
        body,
        unchanged: async () => {
          expect(await t.prisma.webhookEndpoint.findUnique({ where: { id: hook.id } })).toEqual(before);
          expect(await t.prisma.webhookDelivery.count({ where: { endpointId: hook.id, status: 'pending' } })).toBe(0);
        },
      };
    };
    switch (name(row)) {
      case 'PUT /api/v1/auth/password': {
        // The change ends the caller's tokens: a throwaway user of the same role makes it.
        const user = await account.addUser(caller.role);
        return {
          caller: user,
          url: row.path,
          body: { currentPassword: user.password, newPassword: `a brand new passphrase ${randomUUID()}` },
        };
      }
      case 'POST /api/v1/auth/logout':
        // Signing out ends the caller's token: a throwaway user of the same role makes it.
        return { caller: await account.addUser(caller.role), url: row.path };
      case 'DELETE /api/v1/auth/sessions/:id': {
        // Another session of the caller's (a second sign-in), which the call ends.
        const session = await t.prisma.session.create({
          data: {
            id: randomUUID(),
            userId: caller.id,
            userAgent: 'matrix',
            ip: '198.51.100.1',
            method: 'password',
            expiresAt: new Date(Date.now() + 3600_000),
          },
        });
        return { caller, url: `/api/v1/auth/sessions/${session.id}` };
      }
      case 'PATCH /api/v1/account':
        return { caller, url: row.path, body: { name: `Renamed ${randomUUID()}` } };
      case 'PATCH /api/v1/auth/passkeys/:id':
        // One's own passkeys only: an unknown id answers 404 to every role.
        return { caller, url: `/api/v1/auth/passkeys/${randomUUID()}`, body: { name: 'renamed by the matrix' } };
      case 'DELETE /api/v1/auth/passkeys/:id':
        return { caller, url: `/api/v1/auth/passkeys/${randomUUID()}`, body: { password: caller.password } };
      case 'DELETE /api/v1/account': {
        // Deleting ends the caller's account: an account of its own, with a member of the caller's role, makes the call.
        const doomed = await createAccount(t);
        const member = caller.role === 'OWNER' ? doomed.owner : await doomed.addUser(caller.role);
        const { name } = await t.prisma.account.findUniqueOrThrow({ where: { id: doomed.id } });
        return {
          caller: member,
          url: row.path,
          body: { confirm: name },
          unchanged: async () => expect(await t.prisma.account.count({ where: { id: doomed.id } })).toBe(1),
        };
      }
      case 'PUT /api/v1/account/plan':
        return { caller, url: row.path, body: { plan: 'free' } };
      case 'POST /api/v1/api-keys':
        return { caller, url: row.path, body: { name: 'matrix key' } };
      case 'GET /api/v1/api-keys/:id':
        return { caller, ...(await keyRoute()) };
      case 'PATCH /api/v1/api-keys/:id':
        return { caller, ...(await keyRoute('', { name: 'renamed by the matrix' })) };
      case 'DELETE /api/v1/api-keys/:id':
        return { caller, ...(await keyRoute()) };
      case 'POST /api/v1/api-keys/:id/rotate':
        return { caller, ...(await keyRoute('/rotate', {})) };
      case 'POST /api/v1/team/invitations':
        return { caller, url: row.path, body: { email: `invitee-${randomUUID()}@example.com`, role: 'ANALYST' } };
      case 'PATCH /api/v1/team/members/:userId':
        return { caller, ...(await memberRoute({ role: 'DEVELOPER' })) };
      case 'POST /api/v1/team/members/:userId/password-reset': {
        const target = await account.addUser('DEVELOPER');
        return {
          caller,
          url: `/api/v1/team/members/${target.id}/password-reset`,
          unchanged: async () => expect(await t.prisma.passwordReset.count({ where: { userId: target.id } })).toBe(0),
        };
      }
      case 'DELETE /api/v1/team/members/:userId':
        return { caller, ...(await memberRoute()) };
      case 'DELETE /api/v1/team/members/:userId/sessions': {
        const target = await account.addUser('DEVELOPER');
        return {
          caller,
          url: `/api/v1/team/members/${target.id}/sessions`,
          unchanged: async () => {
            expect(await t.prisma.user.findUniqueOrThrow({ where: { id: target.id } })).toMatchObject({ tokenVersion: 0 });
            await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${target.token}`).expect(200);
          },
        };
      }
      case 'DELETE /api/v1/team/invitations/:id': {
        const inv = await t.http
          .post('/api/v1/team/invitations')
          .set('Authorization', `Bearer ${account.owner.token}`)
          .send({ email: `invitee-${randomUUID()}@example.com`, role: 'ANALYST' })
          .expect(201);
        return {
          caller,
          url: `/api/v1/team/invitations/${inv.body.id}`,
          unchanged: async () =>
            expect(await t.prisma.invitation.findUnique({ where: { id: inv.body.id } })).toMatchObject({ revokedAt: null }),
        };
      }
      case 'POST /api/v1/webhooks':
        return { caller, url: row.path, body: { url: 'https://93.184.215.14/matrix' } };
      case 'GET /api/v1/webhooks/:id':
      case 'DELETE /api/v1/webhooks/:id':
      case 'GET /api/v1/webhooks/:id/deliveries':
        return { caller, ...(await webhookRoute('')) };
      case 'PATCH /api/v1/webhooks/:id':
        return { caller, ...(await webhookRoute('', { description: 'changed by the matrix' })) };
      case 'POST /api/v1/webhooks/:id/rotate-secret':
        return { caller, ...(await webhookRoute('/rotate-secret', {})) };
      case 'POST /api/v1/webhooks/:id/test':
        return { caller, ...(await webhookRoute('/test')) };
      case 'POST /api/v1/webhooks/:id/deliveries/:deliveryId/retry': {
        const route = await webhookRoute('');
        const delivery = await t.prisma.webhookDelivery.create({
          data: {
            accountId: account.id,
            endpointId: route.id,
            messageId: `msg_${randomUUID().replaceAll('-', '')}`,
            eventType: 'webhook.test',
            payload: {},
            status: 'failed',
          },
        });
        return { caller, ...route, url: `${route.url}/deliveries/${delivery.id}/retry` };
      }
      default:
        if (row.path.includes(':')) throw new Error(`${name(row)}: the matrix walk does not know how to fill its ids`);
        return { caller, url: row.path, body: row.method === 'GET' || row.method === 'DELETE' ? undefined : {} };
    }
  }

  // Each role calls every row from an account of its own; each call makes its own targets.
  describe.each(ROLES)('as %s', (role) => {
    let account: TestAccount;
    let member: TestUser;

    beforeAll(async () => {
      account = await createAccount(t);
      member = role === 'OWNER' ? account.owner : await account.addUser(role);
    });

    const cases = ROWS.map(
      (row) => [row.roles.includes(role) ? `${name(row)} is allowed` : `${name(row)} is refused with 403, changing nothing`, row] as const,
    );

    it.each(cases)('%s, with the rate-limit headers', async (_title, row) => {
      const call = await prepare(row, account, member);
      const res = await send(row.method, call.url, call.caller.token, call.body);
      try {
        expectRateLimitHeaders(res);
        if (row.roles.includes(role)) {
          expect([401, 403]).not.toContain(res.status);
          expect(res.status).toBeLessThan(500);
          // Without ids in the path, a 404 can only mean the route is missing.
          if (!row.path.includes(':')) expect(res.status).not.toBe(404);
        } else {
          expectError(res, 403, 'insufficient_permissions');
          await call.unchanged?.();
        }
      } catch (err) {
        (err as Error).message = `answered ${res.status} ${JSON.stringify(res.body)}\n${(err as Error).message}`;
        throw err;
      }
    });
  });

  it('gives a refused role 403 on PUT /account/plan without changing the plan', async () => {
    const account = await createAccount(t);
    const admin = await account.addUser('ADMIN');
    const res = await send('PUT', '/api/v1/account/plan', admin.token, { plan: 'enterprise' });
    expectError(res, 403, 'insufficient_permissions');
    expect(await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).toMatchObject({ planId: 'free' });
  });

  describe('against the OpenAPI document', () => {
    const documentedJwtRoutes = async () =>
      (await documentedRoutes(t))
        .filter((r) => r.auth?.method === 'jwt')
        .map((r) => ({
          method: r.method,
          path: r.path.replace(/\{([^}]+)\}/g, ':$1'),
          roles: r.auth?.method === 'jwt' ? [...r.auth.roles] : [],
        }));

    it('has a matrix row, with the same roles, for every documented JWT route', async () => {
      const documented = await documentedJwtRoutes();
      expect(documented.length).toBeGreaterThan(0);
      const rows = new Map(ROWS.map((r) => [name(r), [...r.roles].sort()]));
      expect(documented.map((r) => ({ route: name(r), roles: [...r.roles].sort() }))).toEqual(
        documented.map((r) => ({ route: name(r), roles: rows.get(name(r)) ?? 'no row in the matrix' })),
      );
    });

    it('documents every row of the matrix as a JWT route (nothing in the contract is missing)', async () => {
      const documented = new Set((await documentedJwtRoutes()).map(name));
      expect(ROWS.map(name).filter((r) => !documented.has(r))).toEqual([]);
    });
  });

  describe('tenant isolation', () => {
    let a: TestAccount;
    let b: TestAccount;
    let aKey: { id: string; key: string };
    let aMember: TestUser;

    beforeAll(async () => {
      a = await createAccount(t);
      b = await createAccount(t);
      aKey = await a.createKey({ name: 'belongs to A' });
      aMember = await a.addUser('DEVELOPER');
      await b.createKey({ name: 'belongs to B' });
      await b.addUser('ANALYST');
    });

    it("answers 404 not_found to another account's OWNER for every id of the first account, and changes nothing", async () => {
      const keyBefore = await t.prisma.apiKey.findUniqueOrThrow({ where: { id: aKey.id } });
      const usersBefore = await t.prisma.user.findMany({ where: { accountId: a.id }, orderBy: { id: 'asc' } });
      const calls: Array<[string, string, object?]> = [
        ['GET', `/api/v1/api-keys/${aKey.id}`],
        ['PATCH', `/api/v1/api-keys/${aKey.id}`, { name: 'stolen' }],
        ['POST', `/api/v1/api-keys/${aKey.id}/rotate`, {}],
        ['DELETE', `/api/v1/api-keys/${aKey.id}`],
        ['PATCH', `/api/v1/team/members/${aMember.id}`, { role: 'OWNER' }],
        ['PATCH', `/api/v1/team/members/${a.owner.id}`, { role: 'ANALYST' }],
        ['DELETE', `/api/v1/team/members/${aMember.id}`],
        ['DELETE', `/api/v1/team/members/${a.owner.id}`],
        ['DELETE', `/api/v1/team/members/${aMember.id}/sessions`],
      ];
      for (const [method, url, body] of calls) {
        const res = await send(method, url, b.owner.token, body);
        try {
          expectError(res, 404, 'not_found');
          expectRateLimitHeaders(res);
        } catch (err) {
          (err as Error).message = `${method} ${url}: ${(err as Error).message}`;
          throw err;
        }
      }
      expect(await t.prisma.apiKey.findUniqueOrThrow({ where: { id: aKey.id } })).toEqual(keyBefore);
      expect(await t.prisma.user.findMany({ where: { accountId: a.id }, orderBy: { id: 'asc' } })).toEqual(usersBefore);
      await t.http.get('/api/v1/public/ping').set('X-Api-Key', aKey.key).expect(200);
      const own = await send('GET', `/api/v1/api-keys/${aKey.id}`, a.owner.token);
      expect(own.status).toBe(200);
      expect(own.body).toMatchObject({ id: aKey.id, name: 'belongs to A', status: 'active' });
    });

    it("never lists the first account's ids in the second account's lists", async () => {
      await a.createKey({ name: 'another of A' });
      const aIds = [
        a.id,
        a.owner.id,
        aMember.id,
        aKey.id,
        ...(await t.prisma.apiKey.findMany({ where: { accountId: a.id } })).map((k) => k.id),
        ...(await t.prisma.auditEvent.findMany({ where: { accountId: a.id } })).map((e) => e.id),
      ];
      for (const url of ['/api/v1/api-keys', '/api/v1/team/members', '/api/v1/audit-log?limit=200']) {
        const res = await send('GET', url, b.owner.token);
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeGreaterThan(0);
        const text = JSON.stringify(res.body);
        expect(aIds.filter((id) => text.includes(id)).map((id) => `${url} shows ${id}`)).toEqual([]);
      }
      const members = await send('GET', '/api/v1/team/members', b.owner.token);
      expect(members.body.data.map((m: { email: string }) => m.email)).not.toContain(a.owner.email);
    });
  });
});

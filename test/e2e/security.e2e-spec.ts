import { createAccount, startApp, TestAccount, TestApp } from '../utils/test-app';
import { DocumentedRoute, documentedRoutes } from './shared/routes';
import { runSecuritySuite } from './shared/security-suite';

describe('every documented route', () => {
  let t: TestApp;
  let account: TestAccount;
  let routes: DocumentedRoute[];

  beforeAll(async () => {
    t = await startApp();
    account = await createAccount(t);
    routes = await documentedRoutes(t);
  });
  afterAll(() => t.close());

  it('documents the routes of docs/API.md, "Endpoints"', () => {
    const names = routes.map((r) => `${r.method} ${r.path}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'POST /api/v1/auth/login',
        'GET /api/v1/widget/config',
        'GET /api/v1/public/ping',
        'POST /api/v1/widget/nonces',
        'POST /api/v1/nonces/verify',
        'GET /api/v1/api-keys',
        'POST /api/v1/api-keys',
        'GET /api/v1/api-keys/{id}',
        'PATCH /api/v1/api-keys/{id}',
        'DELETE /api/v1/api-keys/{id}',
        'POST /api/v1/api-keys/{id}/rotate',
        'GET /api/v1/auth/me',
        'PUT /api/v1/auth/password',
        'POST /api/v1/auth/invitations/accept',
        'GET /api/v1/plans',
        'GET /api/v1/account',
        'PATCH /api/v1/account',
        'PUT /api/v1/account/plan',
        'GET /api/v1/team/members',
        'POST /api/v1/team/invitations',
        'PATCH /api/v1/team/members/{userId}',
        'DELETE /api/v1/team/members/{userId}',
        'GET /api/v1/audit-log',
      ]),
    );
  });

  it('declares its authentication (a route that forgets must not ship)', () => {
    expect(routes.filter((r) => r.auth === undefined).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('answers unwelcome callers with the exact status, code and headers', async () => {
    for (const route of routes) {
      try {
        await runSecuritySuite(t, route, account);
      } catch (err) {
        (err as Error).message = `${route.method} ${route.path}: ${(err as Error).message}`;
        throw err;
      }
    }
  });
});

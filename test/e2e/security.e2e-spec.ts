import { createAccount, startApp, TestAccount, TestApp } from '../utils/test-app';
import { DocumentedRoute, documentedRoutes } from './shared/routes';
import { runSecuritySuite } from './shared/security-suite';

/** Public routes of the OpenAPI document: limited per client IP, nothing to refuse. */
const PUBLIC = [
  'POST /api/v1/auth/login',
  'POST /api/v1/auth/login/mfa',
  'POST /api/v1/auth/login/passkey',
  'POST /api/v1/auth/login/session',
  'POST /api/v1/auth/passkeys/authentication-options',
  'POST /api/v1/auth/invitations/accept',
  'POST /api/v1/auth/invitations/preview',
  'POST /api/v1/auth/password-reset/request',
  'POST /api/v1/auth/password-reset/accept',
  'GET /api/v1/auth/signup/challenge',
  'POST /api/v1/auth/signup',
  'POST /api/v1/auth/signup/confirm',
  'GET /api/v1/config',
];

/**
 * Every other route of the OpenAPI document, each run through the security suite as its own test.
 * A route documented but not listed here fails "lists every documented route".
 */
const PROTECTED = [
  'GET /api/v1/auth/me',
  'POST /api/v1/auth/logout',
  'PUT /api/v1/auth/password',
  'GET /api/v1/auth/mfa',
  'POST /api/v1/auth/mfa/totp',
  'POST /api/v1/auth/mfa/totp/confirm',
  'DELETE /api/v1/auth/mfa/totp',
  'POST /api/v1/auth/mfa/recovery-codes',
  'POST /api/v1/auth/passkeys/registration-options',
  'POST /api/v1/auth/passkeys',
  'GET /api/v1/auth/passkeys',
  'PATCH /api/v1/auth/passkeys/{id}',
  'DELETE /api/v1/auth/passkeys/{id}',
  'GET /api/v1/auth/sessions',
  'DELETE /api/v1/auth/sessions/{id}',
  'GET /api/v1/plans',
  'GET /api/v1/audit-log',
  'GET /api/v1/audit-log/export.csv',
  'GET /api/v1/account',
  'PATCH /api/v1/account',
  'PUT /api/v1/account/plan',
  'DELETE /api/v1/account',
  'GET /api/v1/team/members',
  'POST /api/v1/team/invitations',
  'GET /api/v1/team/invitations',
  'DELETE /api/v1/team/invitations/{id}',
  'PATCH /api/v1/team/members/{userId}',
  'DELETE /api/v1/team/members/{userId}',
  'POST /api/v1/team/members/{userId}/password-reset',
  'DELETE /api/v1/team/members/{userId}/sessions',
  'GET /api/v1/api-keys',
  'POST /api/v1/api-keys',
  'GET /api/v1/api-keys/{id}',
  'PATCH /api/v1/api-keys/{id}',
  'DELETE /api/v1/api-keys/{id}',
  'POST /api/v1/api-keys/{id}/rotate',
  'GET /api/v1/widget/config',
  'GET /api/v1/widget/challenge',
  'POST /api/v1/widget/nonces',
  'POST /api/v1/nonces/verify',
  'GET /api/v1/analytics/usage',
  'GET /api/v1/analytics/widget',
  'GET /api/v1/analytics/widget/effort',
  'GET /api/v1/public/ping',
  'GET /api/v1/webhooks',
  'POST /api/v1/webhooks',
  'GET /api/v1/webhooks/{id}',
  'PATCH /api/v1/webhooks/{id}',
  'DELETE /api/v1/webhooks/{id}',
  'POST /api/v1/webhooks/{id}/rotate-secret',
  'POST /api/v1/webhooks/{id}/test',
  'GET /api/v1/webhooks/{id}/deliveries',
  'POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/retry',
];

const name = (r: DocumentedRoute) => `${r.method} ${r.path}`;

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

  it('declares its authentication (a route that forgets must not ship)', () => {
    expect(routes.filter((r) => r.auth === undefined).map(name)).toEqual([]);
  });

  it('lists every documented route, public or protected, here', () => {
    const isPublic = (r: DocumentedRoute) => r.auth?.method === 'none';
    expect({
      public: routes.filter(isPublic).map(name).sort(),
      protected: routes
        .filter((r) => !isPublic(r))
        .map(name)
        .sort(),
    }).toEqual({
      public: [...PUBLIC].sort(),
      protected: [...PROTECTED].sort(),
    });
  });

  it.each(PROTECTED)('%s answers unwelcome callers with the exact status, code and headers', async (route) => {
    const documented = routes.find((r) => name(r) === route);
    if (documented === undefined) throw new Error(`${route} is not in the OpenAPI document`);
    await runSecuritySuite(t, documented, account);
  });
});

import { randomBytes } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import type { Response } from 'supertest';
import { generateApiKey } from '../../../src/api-keys/api-key-secret';
import { API_KEY_SCOPES, ROLES } from '../../../src/common/principal';
import { expectError, expectRateLimitHeaders, TestAccount, TestApp } from '../../utils/test-app';
import type { DocumentedRoute } from './routes';

/** What a caller brings: nothing, one of the two credentials, or a made-up one. */
export type Credential = { apiKey: string } | { bearer: string } | null;

export function call(
  t: TestApp,
  route: DocumentedRoute,
  credential: Credential,
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  let req = t.http[route.method.toLowerCase() as 'get'](route.url).set(extraHeaders);
  if (credential !== null && 'apiKey' in credential) req = req.set('X-Api-Key', credential.apiKey);
  if (credential !== null && 'bearer' in credential) req = req.set('Authorization', `Bearer ${credential.bearer}`);
  return route.method === 'GET' || route.method === 'DELETE' ? req : req.send({});
}

function expect401(res: Response, code: string, challenge: string): void {
  expectError(res, 401, code);
  expect(res.headers['www-authenticate']).toBe(challenge);
  expectRateLimitHeaders(res);
}

/**
 * The answers a protected route owes an unwelcome caller (docs/API.md, "Errors"): no credential, a bad
 * one, the other method's, the wrong role or scope. security.e2e-spec.ts runs it on every
 * protected route of the OpenAPI document.
 */
export async function runSecuritySuite(t: TestApp, route: DocumentedRoute, account: TestAccount): Promise<void> {
  const auth = route.auth;
  if (auth === undefined || auth.method === 'none') throw new Error(`${route.method} ${route.path} declares no authentication to check`);

  if (auth.method === 'apiKey') {
    const challenge = 'ApiKey header="X-Api-Key"';
    expect401(await call(t, route, null), 'missing_credentials', challenge);
    expect401(await call(t, route, { apiKey: 'not-a-key' }), 'invalid_api_key', challenge);
    expect401(await call(t, route, { apiKey: generateApiKey() }), 'invalid_api_key', challenge);
    // The length and prefix of a key, with a character no key has; and a header far longer than a key.
    expect401(await call(t, route, { apiKey: `${generateApiKey().slice(0, -1)}!` }), 'invalid_api_key', challenge);
    expect401(await call(t, route, { apiKey: generateApiKey().repeat(200) }), 'invalid_api_key', challenge);
    expect401(await call(t, route, { bearer: account.owner.token }), 'missing_credentials', challenge);
    const others = API_KEY_SCOPES.filter((s) => s !== auth.scope);
    const { key } = await account.createKey({ scopes: others });
    const res = await call(t, route, { apiKey: key });
    expectError(res, 403, 'insufficient_permissions');
    expectRateLimitHeaders(res);
    return;
  }

  expect401(await call(t, route, null), 'missing_credentials', 'Bearer');
  expect401(await call(t, route, { bearer: 'not.a.jwt' }), 'invalid_token', 'Bearer error="invalid_token"');
  const forged = sign({ sv: 0 }, randomBytes(32), {
    subject: account.owner.id,
    expiresIn: 60,
    issuer: 'gatehouse',
    audience: 'gatehouse-dashboard',
  });
  expect401(await call(t, route, { bearer: forged }), 'invalid_token', 'Bearer error="invalid_token"');
  const { key } = await account.createKey();
  expect401(await call(t, route, { apiKey: key }), 'missing_credentials', 'Bearer');
  for (const role of ROLES.filter((r) => !auth.roles.includes(r))) {
    const user = await account.addUser(role);
    const res = await call(t, route, { bearer: user.token });
    expectError(res, 403, 'insufficient_permissions');
    expectRateLimitHeaders(res);
  }
}

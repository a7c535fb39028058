import { createApiClient } from './client';
import { session } from './session';

/**
 * The dashboard's one client: same origin, the session's bearer token on every call. A 401 that says
 * the token is over (`token_expired`; `invalid_token`: signed out elsewhere, password changed) ends
 * the session; the app then shows sign-in with the reason and returns to the page afterwards.
 */
export const api = createApiClient('', session.token);

api.use({
  async onResponse({ request, response }) {
    // Only a 401 for the token this tab holds now: an answer to a call made with an older one (in
    // flight while a password change swapped the token) must not end the new session.
    if (response.status !== 401 || request.headers.get('Authorization') !== `Bearer ${session.token()}`) return response;
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { error?: string } | null;
    // Only a refusal of the token itself: a public route's own 401 (an invitation's or a reset
    // link's invalid_credentials) says nothing about the session.
    if (body?.error === 'token_expired') session.end('expired');
    else if (body?.error === 'invalid_token') session.end('revoked');
    return response;
  },
});

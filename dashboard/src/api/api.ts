import { createApiClient } from './client';
import { secondFactorDemand, session } from './session';

/**
 * The dashboard's one client: same origin, the session's bearer token on every call. A 401 that
 * refuses the token (`token_expired`, `invalid_token`) first takes a new one from the browser's
 * session, silently; only when the session is over does the page stay under a dialog that signs in
 * again (expired), or the app show sign-in with the reason and return to the page afterwards (ended:
 * signed out elsewhere, password changed). A 403 `mfa_required`
 * (the account requires a second factor, this person has none) sends the person to the Security page.
 */
export const api = createApiClient('', session.token);

api.use({
  async onResponse({ request, response }) {
    if (response.status === 403) {
      const body = (await response
        .clone()
        .json()
        .catch(() => null)) as { error?: string } | null;
      if (body?.error === 'mfa_required') secondFactorDemand.set(true);
      return response;
    }
    // Only a 401 for the token this tab holds now: an answer to a call made with an older one (in
    // flight while a password change swapped the token) must not end the new session.
    if (response.status !== 401 || request.headers.get('Authorization') !== `Bearer ${session.token()}`) return response;
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { error?: string } | null;
    // Only a refusal of the token itself: a public route's own 401 (an invitation's or a reset
    // link's invalid_credentials) says nothing about the session.
    if (body?.error === 'token_expired' || body?.error === 'invalid_token') void session.recover();
    return response;
  },
});

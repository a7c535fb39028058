'use strict';
// JWT requests: GET /auth/me rotating the members' tokens.
const { TIMING, url, rotate, scenario } = require('../context');

/** GET /auth/me rotating the members' tokens, within their allowance (judged from the ping's req/s). */
async function authMe(modeName, app, acct, pingRps) {
  // The members may send 1200 a minute each: where the warm-up and three runs would send more
  // (a fast machine; judged from the ping's rate), each phase sends a quarter of 90% of that.
  const meBudget = Math.floor((acct.tokens.length * 1200 * 0.9) / 4);
  const meAmount = pingRps * Math.max(TIMING.warmup, TIMING.duration) > meBudget ? meBudget : undefined;
  await scenario(`JWT GET /auth/me (${acct.tokens.length} users)`, modeName, app, () => ({
    url: url(app.port),
    ...(meAmount ? { amount: meAmount } : {}),
    requests: rotate(acct.tokens, (t) => ({ method: 'GET', path: '/api/v1/auth/me', headers: { authorization: `Bearer ${t}` } })),
  }));
}

module.exports = { authMe };

'use strict';
// The stack's own floor, measured in the same run as the bare reference and the app: NestJS +
// Fastify (the project's versions) answering the ping's JSON and three rate-limit headers.
//   node bench/floor-server.js <port> route   a controller route, nothing else
//   node bench/floor-server.js <port> guard   + one global guard: sha256 of X-Api-Key, an in-memory
//                                             key map, an in-memory per-key counter, 3 headers
// The guard is issue 6's "Nest+Fastify guard" row: the least an authenticated, rate-limited Nest
// route can cost here. Listens on 127.0.0.1 only. Plain CommonJS: decorators applied by hand.
require('reflect-metadata');
const { createHash } = require('node:crypto');
const { Controller, Get, Module } = require('@nestjs/common');
const { APP_GUARD, NestFactory } = require('@nestjs/core');
const { FastifyAdapter } = require('@nestjs/platform-fastify');

const port = Number(process.argv[2] || process.env.PORT || 3998);
const mode = process.argv[3] === 'guard' ? 'guard' : 'route';
const body = { ok: true, accountId: '00000000-0000-0000-0000-000000000000' };

class PingController {
  ping() {
    return body;
  }
}
Controller('api/v1/public')(PingController);
Get('ping')(PingController.prototype, 'ping', Object.getOwnPropertyDescriptor(PingController.prototype, 'ping'));

/** Keys are registered on first sight (the bench's keys are not known here); the look-up is the point. */
const keys = new Map();
const counters = new Map();
class KeyGuard {
  canActivate(context) {
    const http = context.switchToHttp();
    const req = http.getRequest();
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string') return false;
    const hash = createHash('sha256').update(key).digest('hex');
    let principal = keys.get(hash);
    if (principal === undefined) keys.set(hash, (principal = { keyId: hash.slice(0, 8) }));
    const window = Math.floor(Date.now() / 60_000);
    let c = counters.get(principal.keyId);
    if (c === undefined || c.window !== window) counters.set(principal.keyId, (c = { window, hits: 0 }));
    c.hits++;
    http
      .getResponse()
      .header('X-RateLimit-Limit', 6000)
      .header('X-RateLimit-Remaining', Math.max(0, 6000 - c.hits))
      .header('X-RateLimit-Reset', 60);
    return true;
  }
}

class FloorModule {}
Module({ controllers: [PingController], providers: mode === 'guard' ? [{ provide: APP_GUARD, useClass: KeyGuard }] : [] })(FloorModule);

(async () => {
  const app = await NestFactory.create(FloorModule, new FastifyAdapter(), { logger: false });
  if (mode === 'route') {
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onSend', (_req, reply, payload, done) => {
        reply.header('X-RateLimit-Limit', 6000).header('X-RateLimit-Remaining', 5999).header('X-RateLimit-Reset', 60);
        done(null, payload);
      });
  }
  await app.listen(port, '127.0.0.1');
  console.log(`nest floor (${mode}) on 127.0.0.1:${port}`);
})();

process.on('SIGTERM', () => process.exit(0));

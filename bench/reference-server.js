'use strict';
// Reference servers of the stack: what the stack costs before Gatehouse's own work, measured in the
// same run as the bare reference and the app. NestJS + Fastify (the project's versions) answering
// the ping's JSON and three rate-limit headers.
//   node bench/reference-server.js <port> route   a controller route, nothing else
//   node bench/reference-server.js <port> guard   + one global guard: sha256 of X-Api-Key, an in-memory
//                                                 key map, an in-memory per-key counter, 3 headers
//   node bench/reference-server.js <port> guard-deferred
//                                                 the same guard answering after I/O polling
//                                                 (setImmediate), as Gatehouse's counters do
//   node bench/reference-server.js <port> guard-redis
//                                                 the guard with its counter in Redis (REDIS_URL,
//                                                 keys under REDIS_KEY_PREFIX): one EVALSHA per request
//   node bench/reference-server.js <port> stack | stack-lean
//                                                 the stack Gatehouse keeps: passport-headerapikey
//                                                 through @nestjs/passport, then @nestjs/throttler's guard,
//                                                 both as cheap as they go (see stackProviders)
//   node bench/reference-server.js <port> stack-contract
//                                                 stack-lean answering with the response head docs/API.md
//                                                 asks of every API-key answer, as Gatehouse writes it: a
//                                                 request id (randomUUID, in an onRequest hook), Vary:
//                                                 Origin, and the IETF RateLimit-Policy and RateLimit
//                                                 fields beside the throttler's three X-RateLimit-*
//   node bench/reference-server.js <port> hook | hook-contract
//                                                 what leaving the stack would buy (docs/PERFORMANCE.md,
//                                                 "Tried and not kept"): the ping answered in a
//                                                 Fastify onRequest hook, before Nest's router,
//                                                 passport and the throttler — sha256 key look-up, in-memory
//                                                 counter, three X-RateLimit-* headers (hook), or the
//                                                 contract's response head as stack-contract's (hook-contract)
// Every stack mode also answers POST /api/v1/nonces/verify (bench/ab.js --scenario verify): a JSON body of one
// field through Nest's ValidationPipe (class-validator: IsString, MaxLength; unknown fields refused, as
// Gatehouse's pipe does) and the same guards, answered { valid: false, reason: 'unknown' } — what the stack
// costs a verification before Gatehouse reads the nonce.
// `guard` is the "Nest+Fastify guard" row of the table the performance targets were set from: the
// least an authenticated, rate-limited Nest route can cost here; `guard-redis` its "counter in Redis
// (atomic Lua, EVALSHA)" row, the Redis reference of docs/PERFORMANCE.md. Listens on
// 127.0.0.1 only. Plain CommonJS: decorators applied by hand.
require('reflect-metadata');
const { createHash, randomUUID } = require('node:crypto');
const { Body, Controller, Get, HttpCode, Module, Post, ValidationPipe } = require('@nestjs/common');
const { APP_GUARD, NestFactory } = require('@nestjs/core');
const { FastifyAdapter } = require('@nestjs/platform-fastify');

const port = Number(process.argv[2] || process.env.PORT || 3998);
const MODES = ['route', 'guard', 'guard-deferred', 'guard-redis', 'stack', 'stack-lean', 'stack-contract', 'hook', 'hook-contract'];
const mode = MODES.includes(process.argv[3]) ? process.argv[3] : 'route';
const body = { ok: true, accountId: '00000000-0000-0000-0000-000000000000' };

class PingController {
  ping() {
    return body;
  }
}
Controller('api/v1/public')(PingController);
Get('ping')(PingController.prototype, 'ping', Object.getOwnPropertyDescriptor(PingController.prototype, 'ping'));

class VerifyBody {}
class VerifyController {
  verify() {
    return { valid: false, reason: 'unknown' };
  }
}
/** Decorators by hand, as TypeScript would apply them (plain CommonJS here). */
function declareVerifyRoute() {
  const { IsString, MaxLength } = require('class-validator');
  IsString()(VerifyBody.prototype, 'nonce');
  MaxLength(512)(VerifyBody.prototype, 'nonce');
  Controller('api/v1/nonces')(VerifyController);
  const verify = Object.getOwnPropertyDescriptor(VerifyController.prototype, 'verify');
  Reflect.defineMetadata('design:paramtypes', [VerifyBody], VerifyController.prototype, 'verify');
  Body()(VerifyController.prototype, 'verify', 0);
  HttpCode(200)(VerifyController.prototype, 'verify', verify);
  Post('verify')(VerifyController.prototype, 'verify', verify);
}

/** Keys are registered on first sight (the bench's keys are not known here); the look-up is the point. */
const keys = new Map();
const counters = new Map();

function principalOf(req) {
  const key = req.headers['x-api-key'];
  if (typeof key !== 'string') return undefined;
  const hash = createHash('sha256').update(key).digest('hex');
  let principal = keys.get(hash);
  if (principal === undefined) keys.set(hash, (principal = { keyId: hash.slice(0, 8) }));
  return principal;
}

/** Hits of `id` in the current minute (fixed window). */
function countInMemory(id) {
  const window = Math.floor(Date.now() / 60_000);
  let c = counters.get(id);
  if (c === undefined || c.window !== window) counters.set(id, (c = { window, hits: 0 }));
  return ++c.hits;
}

let redis;
if (mode === 'guard-redis') {
  const Redis = require('ioredis');
  redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  redis.defineCommand('hit', {
    numberOfKeys: 1,
    lua: "local h = redis.call('INCR', KEYS[1]) if h == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return h",
  });
}
const redisPrefix = process.env.REDIS_KEY_PREFIX || 'reference:';

/** The three X-RateLimit-* headers of these servers' fixed 6000-a-minute window; returns what remains. */
function writeLimitHeaders(reply, hits) {
  const remaining = Math.max(0, 6000 - hits);
  reply.header('X-RateLimit-Limit', 6000).header('X-RateLimit-Remaining', remaining).header('X-RateLimit-Reset', 60);
  return remaining;
}

function answer(context, hits) {
  writeLimitHeaders(context.switchToHttp().getResponse(), hits);
  return true;
}

class KeyGuard {
  canActivate(context) {
    const principal = principalOf(context.switchToHttp().getRequest());
    if (principal === undefined) return false;
    if (mode === 'guard-redis') return redis.hit(`${redisPrefix}${principal.keyId}`, 60_000).then((hits) => answer(context, hits));
    const hits = countInMemory(principal.keyId);
    if (mode === 'guard-deferred') return new Promise((resolve) => setImmediate(() => resolve(answer(context, hits))));
    return answer(context, hits);
  }
}

// ---- the stack: passport-headerapikey through @nestjs/passport's PassportStrategy, then
// @nestjs/throttler's ThrottlerGuard, its storage O(1) and answering after I/O polling, key and
// tracker without hashing, the throttler's own three headers.
//   stack       as their documentation wires them: AuthGuard('api-key'), ThrottlerGuard
//   stack-lean  as Gatehouse runs them: the strategy on a per-request object (authenticateWith),
//               ThrottlerGuard.handleRequest called straight (no per-request reflector look-ups)
function stackProviders() {
  const { Injectable } = require('@nestjs/common');
  const { AuthGuard, PassportStrategy } = require('@nestjs/passport');
  const { ThrottlerGuard } = require('@nestjs/throttler');
  const { HeaderAPIKeyStrategy } = require('passport-headerapikey');
  class KeyStrategy extends PassportStrategy(HeaderAPIKeyStrategy, 'api-key') {
    constructor() {
      super({ header: 'X-Api-Key', prefix: '' }, false);
    }
    validate(key) {
      return principalOf({ headers: { 'x-api-key': key } });
    }
  }
  Injectable()(KeyStrategy);
  if (mode === 'stack')
    return [KeyStrategy, { provide: APP_GUARD, useClass: AuthGuard('api-key') }, { provide: APP_GUARD, useClass: ThrottlerGuard }];

  class LeanAuthGuard {
    constructor(strategy) {
      this.strategy = strategy;
    }
    canActivate(context) {
      const req = context.switchToHttp().getRequest();
      return new Promise((resolve, reject) => {
        const run = Object.create(this.strategy);
        run.success = (user) => resolve(!!(req.user = user));
        run.fail = () => resolve(false);
        run.error = reject;
        run.authenticate(req, {});
      });
    }
  }
  Injectable()(LeanAuthGuard);
  Reflect.defineMetadata('design:paramtypes', [KeyStrategy], LeanAuthGuard);
  class LeanThrottlerGuard extends ThrottlerGuard {
    canActivate(context) {
      const throttler = this.throttlers[0];
      const { getTracker, generateKey } = this.commonOptions;
      return this.handleRequest({
        context,
        limit: throttler.limit,
        ttl: throttler.ttl,
        blockDuration: throttler.ttl,
        throttler,
        getTracker,
        generateKey,
      });
    }
  }
  if (mode === 'stack-contract') {
    // The IETF pair from the numbers of the throttler's three headers, which it sets in this order.
    let limit, remaining;
    LeanThrottlerGuard.prototype.setResponseHeader = function (res, name, value) {
      res.header(name, value);
      if (name === 'X-RateLimit-Limit') limit = value;
      else if (name === 'X-RateLimit-Remaining') remaining = value;
      else res.header('ratelimit-policy', `"default";q=${limit};w=60`).header('ratelimit', `"default";r=${remaining};t=${value}`);
    };
  }
  return [KeyStrategy, { provide: APP_GUARD, useClass: LeanAuthGuard }, { provide: APP_GUARD, useClass: LeanThrottlerGuard }];
}

/** The throttler's storage: the same one-minute counter, answering after I/O polling. */
class DeferredStorage {
  increment(key) {
    const totalHits = countInMemory(key);
    const record = { totalHits, timeToExpire: 60 - (Math.floor(Date.now() / 1000) % 60), isBlocked: false, timeToBlockExpire: 0 };
    return new Promise((resolve) => setImmediate(resolve, record));
  }
}

function imports() {
  if (!mode.startsWith('stack')) return [];
  const { ThrottlerModule } = require('@nestjs/throttler');
  return [
    ThrottlerModule.forRoot({
      throttlers: [{ ttl: 60_000, limit: 6000 }],
      storage: new DeferredStorage(),
      getTracker: (req) => req.user.keyId,
      generateKey: (_context, tracker, name) => `${name}:${tracker}`,
    }),
  ];
}

class ReferenceModule {}
if (mode.startsWith('stack')) declareVerifyRoute();
Module({
  imports: imports(),
  controllers: mode.startsWith('stack') ? [PingController, VerifyController] : [PingController],
  providers: mode === 'route' ? [] : mode.startsWith('stack') ? stackProviders() : [{ provide: APP_GUARD, useClass: KeyGuard }],
})(ReferenceModule);

(async () => {
  const contract = mode === 'stack-contract' || mode === 'hook-contract';
  const adapter = new FastifyAdapter(contract ? { genReqId: () => randomUUID() } : {});
  const app = await NestFactory.create(ReferenceModule, adapter, { logger: false });
  if (mode.startsWith('stack')) app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }));
  if (contract) {
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRequest', (req, reply, done) => {
        reply.header('x-request-id', req.id).header('vary', 'Origin');
        done();
      });
  }
  if (mode.startsWith('hook')) {
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRequest', (req, reply, done) => {
        if (req.url !== '/api/v1/public/ping') return done();
        const principal = principalOf(req);
        if (principal === undefined) return reply.code(401).send({ statusCode: 401, error: 'invalid_api_key' });
        const remaining = writeLimitHeaders(reply, countInMemory(principal.keyId));
        if (contract) reply.header('ratelimit-policy', '"default";q=6000;w=60').header('ratelimit', `"default";r=${remaining};t=60`);
        reply.send(body);
      });
  }
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
  console.log(`stack reference (${mode}) on 127.0.0.1:${port}`);
})();

process.on('SIGTERM', () => process.exit(0));

import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { Hono } from 'hono';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gatehouse as expressGatehouse } from '../src/express';
import { gatehouse as fastifyGatehouse } from '../src/fastify';
import { gatehouse as honoGatehouse } from '../src/hono';
import { GatehouseGuard, GatehouseVerdict } from '../src/nestjs';
import { withGatehouse } from '../src/next';
import type { MiddlewareOptions } from '../src/adapters/common';
import type { NonceVerifier, Verdict } from '../src/types';

/** A server with `POST /signup` behind the framework's Gatehouse middleware; the handler answers what it saw. */
export interface Mounted {
  readonly url: string;
  close(): Promise<void>;
}
export type Mount = (verifier: NonceVerifier, options?: MiddlewareOptions) => Promise<Mounted>;

/** What every handler answers: the verdict it was given and a field of the body it could still read. */
const seen = (verdict: Verdict | undefined, body: unknown) => ({
  handled: true,
  outcome: verdict?.outcome,
  hostname: verdict !== undefined && verdict.outcome === 'valid' ? verdict.hostname : undefined,
  email: (body as { email?: unknown } | undefined)?.email,
});

/**
 * Configuration errors reach the framework's error handling. Express and Fastify keep their own
 * default handling (it reads an error's `status`); the fetch-based servers answer a 500 that names
 * the error's code.
 */
const errorCode = (err: unknown) => ({ error: (err as { code?: string }).code ?? 'unknown' });

/** A Node server listening on a free loopback port. */
export const listening = async (server: ReturnType<typeof createServer>): Promise<Mounted> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const urlencoded = (fastify: FastifyInstance) =>
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

/** A Node server in front of a fetch handler (what @hono/node-server and Next.js do), for the Request-based adapters. */
const fetchServer = (handler: (request: Request) => Promise<Response>) =>
  listening(
    createServer((req: IncomingMessage, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
        const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
        const response = await handler(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body })).catch(
          (err: unknown) => Response.json(errorCode(err), { status: 500 }),
        );
        const out: Record<string, string> = {};
        response.headers.forEach((value, name) => (out[name] = value));
        res.writeHead(response.status, out);
        res.end(Buffer.from(await response.arrayBuffer()));
      })();
    }),
  );

const bodyOf = async (request: Request): Promise<unknown> => {
  if ((request.headers.get('content-type') ?? '').includes('json')) return request.json();
  const fields: Record<string, unknown> = {};
  (await request.formData()).forEach((value, name) => (fields[name] = value));
  return fields;
};

export const FRAMEWORKS: Record<string, Mount> = {
  async express(verifier, options) {
    const app = express();
    app.use(express.json(), express.urlencoded({ extended: false }));
    app.post('/signup', expressGatehouse(verifier, options), (req, res) => {
      res.json(seen(req.gatehouse, req.body));
    });
    return listening(createServer(app));
  },

  async fastify(verifier, options) {
    const app = Fastify();
    urlencoded(app);
    app.post('/signup', { preHandler: fastifyGatehouse(verifier, options) }, (request) => seen(request.gatehouse, request.body));
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  },

  async hono(verifier, options) {
    const app = new Hono();
    app.post('/signup', honoGatehouse(verifier, options), async (c) => c.json(seen(c.get('gatehouse'), await bodyOf(c.req.raw))));
    app.onError((err, c) => c.json(errorCode(err), 500));
    return fetchServer(async (request) => app.fetch(request));
  },

  async nestjs(verifier, options) {
    @Controller()
    class SignupController {
      @Post('signup')
      @HttpCode(200)
      @UseGuards(new GatehouseGuard(verifier, options))
      signup(@GatehouseVerdict() verdict: Verdict, @Body() body: unknown) {
        return seen(verdict, body);
      }
    }
    @Module({ controllers: [SignupController] })
    class AppModule {}
    // Nest's Fastify platform parses JSON and urlencoded bodies itself.
    const app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter(), { logger: false });
    await app.listen(0, '127.0.0.1');
    return { url: await app.getUrl().then((u) => u.replace('[::1]', '127.0.0.1')), close: () => app.close() };
  },

  async next(verifier, options) {
    const POST = withGatehouse(
      verifier,
      async (request, _ctx: unknown, verdict) => Response.json(seen(verdict, await bodyOf(request))),
      options,
    );
    return fetchServer((request) => POST(request, {}));
  },
};

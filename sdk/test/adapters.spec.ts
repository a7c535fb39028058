import express from 'express';
import { createServer } from 'node:http';
import { GatehouseConfigurationError } from '../src/errors';
import { gatehouse as expressGatehouse } from '../src/express';
import { verifyFormData } from '../src/next';
import { FakeVerifier } from '../src/testing';
import type { NonceVerifier } from '../src/types';
import { type AdapterWorld, describeAdapterBehaviour } from './adapter-behaviour';
import { FRAMEWORKS, listening } from './frameworks';

/** The shared middleware suite on the fake verifier of /testing. */
const fake = new FakeVerifier({ hostname: 'shop.example.com' });
const world: AdapterWorld = {
  verifier: () => fake,
  freshNonce: () => Promise.resolve(fake.issueNonce()),
  hostname: 'shop.example.com',
  unavailable: (options) => new FakeVerifier({ answer: 'unavailable', ...options }),
  wrongScope: (): NonceVerifier => ({
    verify: () => Promise.reject(new GatehouseConfigurationError('insufficient_permissions', 'The API key lacks the `verify` scope.', 403)),
    verifyOrThrow: () =>
      Promise.reject(new GatehouseConfigurationError('insufficient_permissions', 'The API key lacks the `verify` scope.', 403)),
  }),
  asked: () => fake.verified,
};

for (const [name, mount] of Object.entries(FRAMEWORKS)) describeAdapterBehaviour(name, mount, () => world);

describe('Next.js server actions (verifyFormData)', () => {
  it('verifies the FormData’s field: valid once, refused after, malformed without it', async () => {
    const form = new FormData();
    form.set('gatehouse-nonce', fake.issueNonce());
    await expect(verifyFormData(fake, form)).resolves.toMatchObject({ outcome: 'valid', accepted: true });
    await expect(verifyFormData(fake, form)).resolves.toMatchObject({ outcome: 'invalid', reason: 'already_used' });
    await expect(verifyFormData(fake, new FormData())).resolves.toMatchObject({ outcome: 'invalid', reason: 'malformed' });
    form.append('gatehouse-nonce', 'second');
    await expect(verifyFormData(fake, form)).resolves.toMatchObject({ reason: 'malformed' });
  });
});

describe('Express without a body parser', () => {
  it('refuses a form as malformed, unasked, and names the missing parser once in a process warning', async () => {
    const app = express();
    app.post('/signup', expressGatehouse(fake), (_req, res) => {
      res.json({ handled: true });
    });
    const server = await listening(createServer(app));
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const asked = fake.verified.length;
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${server.url}/signup`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ 'gatehouse-nonce': fake.issueNonce() }).toString(),
        });
        expect({ status: res.status, body: await res.json() }).toMatchObject({ status: 403, body: { reason: 'malformed' } });
      }
      expect(fake.verified.length).toBe(asked);
      expect(warn.mock.calls).toEqual([
        [expect.stringContaining('mount express.urlencoded() or express.json() before it'), { code: 'GATEHOUSE_UNPARSED_BODY' }],
      ]);
    } finally {
      warn.mockRestore();
      await server.close();
    }
  });
});

describe('Express with onRefused', () => {
  it('answers a refused form its own way (a redirect back to the page), with Express’s own response', async () => {
    const app = express();
    app.post(
      '/signup',
      express.urlencoded({ extended: false }),
      expressGatehouse(fake, {
        onRefused: (verdict, _req, res: express.Response) => res.redirect(303, `/signup?check=${verdict.outcome}`),
      }),
      (_req, res) => {
        res.json({ handled: true });
      },
    );
    const server = await listening(createServer(app));
    try {
      const res = await fetch(`${server.url}/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ 'gatehouse-nonce': 'ghn_made_up' }).toString(),
        redirect: 'manual',
      });
      expect({ status: res.status, location: res.headers.get('location') }).toEqual({ status: 303, location: '/signup?check=invalid' });
    } finally {
      await server.close();
    }
  });
});

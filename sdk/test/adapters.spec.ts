import { GatehouseConfigurationError } from '../src/errors';
import { verifyFormData } from '../src/next';
import { FakeVerifier } from '../src/testing';
import type { NonceVerifier } from '../src/types';
import { type AdapterWorld, describeAdapterBehaviour } from './adapter-behaviour';
import { FRAMEWORKS } from './frameworks';

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

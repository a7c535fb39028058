import type { AppConfig } from '../config/app-config';
import type { PrismaService } from '../prisma/prisma.service';
import type { AccountsService } from './accounts.service';
import { BootstrapOwner } from './bootstrap-owner';

/** The start-up line's advice (src/main.ts): the dashboard's sign-in page, not Swagger's Authorize. */
describe('BootstrapOwner.howToSignIn', () => {
  const base = 'http://localhost:3000';
  const make = async (users: number, owner?: { email: string; password: string }) => {
    const prisma = { user: { count: () => Promise.resolve(users) } } as unknown as PrismaService;
    const accounts = { createWithOwner: () => Promise.resolve() } as unknown as AccountsService;
    const bootstrap = new BootstrapOwner({ env: 'test', bootstrapOwner: owner } as unknown as AppConfig, prisma, accounts);
    await bootstrap.onApplicationBootstrap();
    return bootstrap.howToSignIn(base);
  };

  it('points the bootstrap OWNER to the dashboard sign-in page', async () => {
    const line = await make(0, { email: 'Owner@Example.com', password: 'a long enough password' });
    expect(line).toBe('sign in as owner@example.com on the dashboard: http://localhost:3000/sign-in');
    expect(line).not.toMatch(/Authorize/);
  });

  it('points anyone to the dashboard once users exist', async () => {
    expect(await make(3)).toBe("sign in with a user's email and password on the dashboard: http://localhost:3000/sign-in");
  });

  it('says how to make the first OWNER when there is no user', async () => {
    expect(await make(0)).toMatch(/^no users yet: restart with BOOTSTRAP_OWNER_EMAIL/);
  });
});

import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { normalizeEmail } from '../common/email';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { PrismaService } from '../prisma/prisma.service';
import { AccountsService } from './accounts.service';

/**
 * On a database with no users: account "Default" (plan free) with BOOTSTRAP_OWNER_* as its OWNER.
 * Without them, a newcomer is told how to get in; no password is ever generated into a log.
 */
@Injectable()
export class BootstrapOwner implements OnApplicationBootstrap {
  private readonly logger = new Logger(BootstrapOwner.name);

  /** Who may sign in, once known: the bootstrap OWNER's email, `anyone` (a user exists), or null (no users yet). */
  private signIn: { email: string } | 'anyone' | null = 'anyone';

  /** How a person gets in, for the line main.ts prints once the server listens at `base`: the dashboard's sign-in page. */
  howToSignIn(base: string): string {
    if (this.signIn === null) {
      return 'no users yet: restart with BOOTSTRAP_OWNER_EMAIL and BOOTSTRAP_OWNER_PASSWORD (12+ characters) to create the first OWNER';
    }
    const who = this.signIn === 'anyone' ? "with a user's email and password" : `as ${this.signIn.email}`;
    return `sign in ${who} on the dashboard: ${base}/sign-in`;
  }

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly prisma: PrismaService,
    private readonly accounts: AccountsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const owner = this.config.bootstrapOwner;
    const signInAs = owner === undefined ? undefined : { email: normalizeEmail(owner.email) };
    if ((await this.prisma.user.count()) > 0) {
      this.signIn = signInAs ?? 'anyone';
      return;
    }
    if (owner === undefined) {
      this.signIn = null;
      if (this.config.env === 'development') {
        this.logger.warn(
          'No users yet. To get in, restart with BOOTSTRAP_OWNER_EMAIL=<you@example.com> and ' +
            'BOOTSTRAP_OWNER_PASSWORD=<12+ characters>: that creates account "Default" with you as its OWNER.',
        );
      }
      return;
    }
    await this.accounts.createWithOwner({ name: 'Default', email: owner.email, password: owner.password });
    this.logger.log(`Created account "Default" with owner ${normalizeEmail(owner.email)}`);
    this.signIn = { email: normalizeEmail(owner.email) };
  }
}

import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { normalizeEmail } from '../auth/auth.service';
import { hashPassword } from '../auth/passwords';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { PrismaService } from '../prisma/prisma.service';

/**
 * On a database with no users: account "Default" (plan free) with BOOTSTRAP_OWNER_* as its OWNER.
 * Without them, a newcomer is told how to get in; no password is ever generated into a log.
 */
@Injectable()
export class BootstrapOwner implements OnApplicationBootstrap {
  private readonly logger = new Logger(BootstrapOwner.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly prisma: PrismaService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if ((await this.prisma.user.count()) > 0) return;
    const owner = this.config.bootstrapOwner;
    if (owner === undefined) {
      if (this.config.env === 'development') {
        this.logger.warn(
          'No users yet. To get in, restart with BOOTSTRAP_OWNER_EMAIL=<you@example.com> and ' +
            'BOOTSTRAP_OWNER_PASSWORD=<12+ characters>: that creates account "Default" with you as its OWNER.',
        );
      }
      return;
    }
    const email = normalizeEmail(owner.email);
    await this.prisma.account.create({
      data: {
        name: 'Default',
        planId: 'free',
        users: { create: { email, role: 'OWNER', passwordHash: await hashPassword(owner.password) } },
      },
    });
    this.logger.log(`Created account "Default" with owner ${email}`);
  }
}

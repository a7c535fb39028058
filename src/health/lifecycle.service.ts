import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiKeyUsageTracker } from '../api-keys/api-key-usage.tracker';
import { AppError } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SessionService } from '../credentials/session.service';
import { PrismaService } from '../prisma/prisma.service';
import { UsageRecorder } from '../usage/usage.recorder';
import { WebhookDeliverer } from '../webhooks/webhook-deliverer';
import type { Logger as PinoLogger } from 'pino';
import { PINO } from '../logging/logging.module';

const SHUTTING_DOWN = 'This instance is shutting down; retry the request.';

/**
 * The order of a graceful stop (SIGTERM, or app.close()), in one place. Nest runs
 * beforeApplicationShutdown, then closes the HTTP server (in-flight requests finish), then
 * onApplicationShutdown:
 * 1. not ready: /health/ready answers 503, for SHUTDOWN_DRAIN_MS, so load balancers stop sending;
 * 2. the server closes once in-flight requests are answered; a request that still arrives on an
 *    open connection is refused with our 503 (see `refusal`), not served;
 * 3. the webhook worker stops taking deliveries (one in flight is cut short and left to the queue);
 * 4. the last usage counts, API keys' lastUsedAt and sessions' lastSeenAt are written;
 * 5. the database pool (or PGlite) closes, and buffered log lines are written.
 */
@Injectable()
export class Lifecycle implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(Lifecycle.name);
  private draining = false;
  private closing = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly usage: UsageRecorder,
    private readonly keyUsage: ApiKeyUsageTracker,
    private readonly sessions: SessionService,
    private readonly prisma: PrismaService,
    private readonly webhooks: WebhookDeliverer,
    @Inject(PINO) private readonly log: PinoLogger,
  ) {}

  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * What a request that arrives after the drain gets (Nest closes the server right after it):
   * a 503 in the documented body, answered by the exception filter, or undefined while serving.
   */
  refusal(): AppError | undefined {
    return this.closing ? new AppError('service_unavailable', SHUTTING_DOWN).withRetryAfter(1) : undefined;
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.draining = true;
    if (signal !== undefined) this.logger.log(`${signal}: not ready; draining for ${this.config.shutdownDrainMs} ms`);
    if (this.config.shutdownDrainMs > 0) await sleep(this.config.shutdownDrainMs);
    this.closing = true;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.webhooks.stop();
    await this.usage.stop();
    await this.keyUsage.stop();
    await this.sessions.stop();
    await this.prisma.close();
    await new Promise<void>((resolve) => this.log.flush(() => resolve()));
  }
}

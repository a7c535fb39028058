import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { InjectThrottlerStorage } from '@nestjs/throttler';
import type { FastifyReply } from 'fastify';
import { Public, SkipRateLimit } from '../common/auth.decorators';
import { PrismaService } from '../prisma/prisma.service';
import type { CounterStorage } from '../rate-limit/counter-storage';
import { Lifecycle } from './lifecycle.service';

interface Readiness {
  readonly status: 'ready' | 'not_ready';
  readonly draining: boolean;
  readonly database: 'up' | 'down';
  readonly rateLimits: ReturnType<CounterStorage['status']>;
}

/**
 * Outside /api/v1 and outside the rate limits, for load balancers and orchestrators.
 * Not ready = draining or the database unreachable. An unreachable Redis is reported but does not
 * make an instance unready: limits go local (docs/DECISIONS.md), and pulling every instance out of
 * rotation would turn a degraded limiter into an outage.
 */
@ApiExcludeController()
@SkipRateLimit()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly prisma: PrismaService,
    private readonly lifecycle: Lifecycle,
    @InjectThrottlerStorage() private readonly limits: CounterStorage,
  ) {}

  /** Liveness: the process answers. Restart it only when this fails. */
  @Get('live')
  live(): { status: 'alive' } {
    return { status: 'alive' };
  }

  @Get('ready')
  ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<Readiness> {
    return this.readiness(reply);
  }

  /** Same as /health/ready. */
  @Get()
  health(@Res({ passthrough: true }) reply: FastifyReply): Promise<Readiness> {
    return this.readiness(reply);
  }

  private async readiness(reply: FastifyReply): Promise<Readiness> {
    const database = this.lifecycle.isDraining
      ? 'down'
      : await this.prisma.ping().then(
          () => 'up' as const,
          () => 'down' as const,
        );
    const ready = !this.lifecycle.isDraining && database === 'up';
    if (!ready) reply.status(503);
    return { status: ready ? 'ready' : 'not_ready', draining: this.lifecycle.isDraining, database, rateLimits: this.limits.status() };
  }
}

import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { PrismaService } from '../prisma/prisma.service';

/** Outside /api/v1 and outside the rate limits: for load balancers and orchestrators. */
@ApiExcludeController()
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(private readonly prisma: PrismaService) {}

  @Get()
  @Public()
  @HttpCode(200)
  async health(@Res({ passthrough: true }) reply: FastifyReply): Promise<{ status: string; database: string }> {
    const database = await this.prisma.ping().then(
      () => 'up',
      () => 'down',
    );
    if (database !== 'up') reply.status(503);
    return { status: database === 'up' ? 'ok' : 'unavailable', database };
  }
}

import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { Database } from './database';

export const DATABASE = Symbol('DATABASE');

/** The generated client over the chosen adapter (embedded PGlite or PostgreSQL). */
@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  constructor(@Inject(DATABASE) private readonly database: Database) {
    super({ adapter: database.adapter });
  }

  get kind(): Database['kind'] {
    return this.database.kind;
  }

  async ping(): Promise<void> {
    await this.$queryRaw`SELECT 1`;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
    await this.database.close();
  }
}

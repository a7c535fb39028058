import { mkdirSync } from 'node:fs';
import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig, IN_MEMORY } from '../config/app-config';
import { Metrics } from '../metrics/metrics';
import { PlansModule } from '../plans/plans.module';
import { PrismaService } from '../prisma/prisma.service';
import { NoncesController } from './nonces.controller';
import { NoncesService, SPENT_STORE } from './nonces.service';
import { DatabaseSpentStore, LocalSpentStore, RedisSpentStore, SpentStore } from './spent-store';

/** Where single use is decided: Redis when instances share one, else PostgreSQL, else this process and its data directory. */
async function createSpentStore(config: AppConfig, prisma: PrismaService, metrics: Metrics): Promise<SpentStore> {
  if (config.redis !== undefined) {
    const store = new RedisSpentStore(
      config.redis,
      `${config.redisKeyPrefix}spent:`,
      new DatabaseSpentStore(prisma),
      250,
      metrics.redisCall('nonce-claim'),
    );
    await store.ready();
    return store;
  }
  if (config.databaseUrl !== undefined) return new DatabaseSpentStore(prisma);
  if (config.dataDir === IN_MEMORY) return new LocalSpentStore();
  mkdirSync(config.dataDir, { recursive: true });
  return LocalSpentStore.inDataDir(config.dataDir);
}

@Module({
  imports: [PlansModule],
  controllers: [NoncesController],
  providers: [NoncesService, { provide: SPENT_STORE, inject: [APP_CONFIG, PrismaService, Metrics], useFactory: createSpentStore }],
  exports: [NoncesService],
})
export class NoncesModule {}

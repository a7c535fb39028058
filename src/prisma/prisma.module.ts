import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Database, openDatabase } from './database';
import { DATABASE, PrismaService } from './prisma.service';

@Global()
@Module({})
export class PrismaModule {
  /** `database` replaces the one the config names (tests hand in a migrated in-memory PGlite). */
  static forRoot(database?: Database): DynamicModule {
    return {
      module: PrismaModule,
      providers: [
        database !== undefined
          ? { provide: DATABASE, useValue: database }
          : { provide: DATABASE, inject: [APP_CONFIG], useFactory: (config: AppConfig) => openDatabase(config) },
        PrismaService,
      ],
      exports: [PrismaService],
    };
  }
}

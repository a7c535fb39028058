import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { BackupSocket } from './backup-socket';
import { openDatabase } from './database';
import { EmbeddedVacuum } from './embedded-vacuum';
import { DATABASE, PrismaService } from './prisma.service';

@Global()
@Module({
  providers: [
    { provide: DATABASE, inject: [APP_CONFIG], useFactory: (config: AppConfig) => openDatabase(config) },
    PrismaService,
    EmbeddedVacuum,
    BackupSocket,
  ],
  exports: [PrismaService],
})
export class PrismaModule {}

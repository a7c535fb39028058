import type { IncomingMessage } from 'node:http';
import { Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { createLogger } from './logger';

export const PINO = Symbol('PINO');

@Global()
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [PINO],
      providers: [{ provide: PINO, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createLogger(config) }],
      useFactory: (logger: Logger) => ({
        pinoHttp: {
          logger,
          // Request lines come from app.setup.ts (route template, status, latency); here only context.
          autoLogging: false,
          quietReqLogger: true,
          genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id: string }).id,
        },
      }),
    }),
  ],
})
export class LoggingModule {}

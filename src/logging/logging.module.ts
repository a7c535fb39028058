import { Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { createLogger } from './logger';

export const PINO = Symbol('PINO');

/** One pino logger (PINO) behind Nest's Logger (nestjs-pino) and the request lines of app.setup.ts. */
@Global()
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [PINO],
      useFactory: (logger: Logger) => ({
        pinoHttp: { logger, autoLogging: false },
        // No per-request middleware: its child logger, AsyncLocalStorage and middie cost ~18% of
        // an API-key request (docs/BENCHMARKS.md). Request lines, with the request id, come from
        // app.setup.ts; Nest's own log lines go straight to the root logger.
        forRoutes: [],
      }),
    }),
  ],
  providers: [{ provide: PINO, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createLogger(config) }],
  exports: [PINO],
})
export class LoggingModule {}

import type { LoggerService } from '@nestjs/common';

/**
 * Nest's boot chatter — a line per module and per mapped route — at debug level instead of info:
 * at the default level a start shows what a person needs (migrations, warnings, the listening line
 * of main.ts), and `LOG_LEVEL=debug` still shows every route.
 */
const STARTUP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

export class QuietStartupLogger implements LoggerService {
  constructor(private readonly inner: LoggerService & { debug(message: unknown, ...params: unknown[]): void }) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params[params.length - 1];
    if (typeof context === 'string' && STARTUP_CONTEXTS.has(context)) this.inner.debug(message, ...params);
    else this.inner.log(message, ...params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.inner.error(message, ...params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.inner.warn(message, ...params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.inner.debug(message, ...params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.inner.verbose?.(message, ...params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.inner.fatal?.(message, ...params);
  }
}

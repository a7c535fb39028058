import pino, { Logger } from 'pino';
import type { AppConfig } from '../config/app-config';

/**
 * One pino logger for Nest, Fastify and the request lines. JSON, ISO times; credentials are never
 * logged (request context carries only the request id), and the redaction is a second line of defence.
 */
export function createLogger(config: AppConfig): Logger {
  return pino(
    {
      level: config.logLevel,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'req.headers.cookie',
          'headers.authorization',
          'headers["x-api-key"]',
        ],
        censor: '[redacted]',
      },
    },
    // Asynchronous writes (flushed at shutdown, see Lifecycle): a write syscall per line would cost
    // every request.
    pino.destination({ dest: config.logFile ?? 1, sync: false, mkdir: true }),
  );
}

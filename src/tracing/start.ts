import { startTracing } from './tracing';

// Imported first by main.ts: the instrumentations patch http, pg, ioredis and Prisma as they load.
startTracing();

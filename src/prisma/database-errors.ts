/** Prisma codes for "the database is not there" (not for a bad query). */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);
/** Driver-adapter error kinds for the same. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
/** Socket errors, and PostgreSQL SQLSTATE classes 08 (connection) and 57P0x (shutting down). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);
const PG_SQLSTATE = /^(08...|57P0.)$/;
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Can't reach database server|Server has closed the connection/i;

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/** True when `err` says the database cannot be reached (answer 503), rather than that a query failed. */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (err === null || typeof err !== 'object' || depth > 5) return false;
  const e = err as ErrorLike;
  if (e.name === 'PrismaClientInitializationError') return true;
  if (typeof e.code === 'string' && (PRISMA_CODES.has(e.code) || NETWORK_CODES.has(e.code) || PG_SQLSTATE.test(e.code))) return true;
  if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.originalCode === 'string' && (NETWORK_CODES.has(e.originalCode) || PG_SQLSTATE.test(e.originalCode))) return true;
  if (typeof e.message === 'string' && MESSAGES.test(e.message)) return true;
  return isDatabaseUnavailable(e.cause, depth + 1) || isDatabaseUnavailable(e.meta?.driverAdapterError, depth + 1);
}

/**
 * Prisma's P2028 for a transaction that waited its whole `maxWait` to start (for a free pooled
 * connection, or PGlite's lock): the database is busy, not gone, and the same request later succeeds.
 */
export function isDatabaseBusy(err: unknown): boolean {
  const e = err as ErrorLike | null;
  return e?.code === 'P2028' && typeof e.message === 'string' && e.message.includes('Unable to start a transaction');
}

/** A write refused by a unique index (Prisma's P2002): the row it would duplicate exists. */
export const isUniqueViolation = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 'P2002';

import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import Bowser from 'bowser';
import { AuditService } from '../audit/audit.service';
import { CacheInvalidation } from '../cache/invalidation.service';
import type { Actor, RequestSource } from '../common/current-principal.decorator';
import { AppError } from '../common/errors/app-error';
import { hashOneTimeToken } from '../common/one-time-token';
import type { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';
import type { TokenResponseDto } from './dto/login.dto';
import type { SessionDto } from './dto/session.dto';
import { newSessionSecret, SESSION_SECRET, StartedSession } from './session-cookie';
import { TokenService } from './token.service';

/** How a session signed in. */
export const SESSION_METHODS = [
  'password',
  'totp',
  'recovery_code',
  'passkey',
  'invitation',
  'password_reset',
  'signup',
  'password_change',
] as const;
export type SessionMethod = (typeof SESSION_METHODS)[number];

/** The User-Agent kept with a session, cut to the column's limit. */
export const USER_AGENT_MAX = 512;

/** How often the sessions used since the last time get their lastSeenAt written (one statement per batch). */
export const LAST_SEEN_FLUSH_MS = 60_000;

/** Ids per `UPDATE … WHERE id IN (…)` of a flush. */
const FLUSH_BATCH = 5000;

/** The newest sessions a list shows. */
export const SESSIONS_LISTED = 100;

/**
 * Sessions (docs/API.md, "Sessions"): every sign-in starts one, whose id is its tokens' `jti`; the
 * browser keeps its cookie secret (only a hash is stored) to take short-lived tokens of it (BrowserSessionService).
 * Ending one revokes its token as signing out does (RevokedToken, the `user` topic invalidated: refused
 * on every instance from the next request on). A token issued before sessions existed has no row and
 * keeps working until it expires.
 *
 * lastSeenAt is written off the request path: the JWT strategy notes each token it accepts
 * (`seen`), and the noted ids are written once a minute in one statement.
 */
@Injectable()
export class SessionService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SessionService.name);
  private seenSince = new Set<string>();
  private flusher?: NodeJS.Timeout;
  private janitor?: NodeJS.Timeout;

  constructor(
    private readonly prisma: PrismaService,
    private readonly tokens: TokenService,
    private readonly invalidation: CacheInvalidation,
    private readonly audit: AuditService,
  ) {}

  /**
   * Issues a token for `user` and starts its session through `db`: the transaction client of the
   * change that signs the user in, when there is one, so the row commits with it.
   */
  async start(
    db: Prisma.TransactionClient,
    user: { readonly id: string; readonly tokenVersion: number },
    method: SessionMethod,
    client: Pick<RequestSource, 'ip' | 'userAgent'>,
  ): Promise<TokenResponseDto> {
    const id = randomUUID();
    const secret = newSessionSecret();
    const issued = this.tokens.issue(user, id);
    // Taken after signing: never before the token's own `exp`, so a revocation outlives the token.
    const expiresAt = new Date(Date.now() + issued.expiresIn * 1000);
    await db.session.create({
      data: {
        id,
        userId: user.id,
        userAgent: client.userAgent.slice(0, USER_AGENT_MAX),
        ip: client.ip,
        method,
        expiresAt,
        secretHash: hashOneTimeToken(secret),
      },
    });
    const started: StartedSession = { secret, userId: user.id, sessionId: id, expiresAt };
    return Object.assign(issued, { [SESSION_SECRET]: started });
  }

  /** Ends every session of the user still open, in the change's transaction (a password change or reset: the tokens die by their version). */
  endAllOf(tx: Prisma.TransactionClient, userId: string, now = new Date()): Promise<Prisma.BatchPayload> {
    return tx.session.updateMany({ where: { userId, endedAt: null }, data: { endedAt: now } });
  }

  /** The user's live sessions (not ended, not expired), newest first; `currentId` is the calling token's. */
  async list(userId: string, currentId: string): Promise<SessionDto[]> {
    const rows = await this.prisma.session.findMany({
      where: { userId, endedAt: null, expiresAt: { gt: new Date() } },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: SESSIONS_LISTED,
    });
    return rows.map((s) => ({
      id: s.id,
      device: deviceOf(s.userAgent),
      ip: s.ip,
      method: s.method as SessionMethod,
      createdAt: s.createdAt.toISOString(),
      lastSeenAt: s.lastSeenAt.toISOString(),
      expiresAt: s.expiresAt.toISOString(),
      current: s.id === currentId,
    }));
  }

  /** Ends one of the actor's own live sessions; any other id (another user's, ended, expired) is 404. */
  async endOwn(actor: Actor, id: string): Promise<void> {
    const now = new Date();
    await this.prisma.$transaction(async (tx) => {
      const session = await tx.session.findFirst({ where: { id, userId: actor.userId, endedAt: null, expiresAt: { gt: now } } });
      if (session === null || !(await endSession(tx, session, now))) throw new AppError('not_found', 'No such session.');
      await this.audit.recordBy(tx, actor, 'auth.session_ended', { type: 'user', id: actor.userId }, { sessionId: id, by: 'self' });
    });
    this.invalidation.invalidate('user', actor.userId);
  }

  /**
   * Ends every session of a member (the caller, TeamService, decides the actor may): their token
   * version goes up, so every token of theirs is refused — also one issued before sessions existed.
   * One `auth.session_ended` event per live session ended.
   */
  async endAllByAdmin(actor: Actor, userId: string): Promise<void> {
    const now = new Date();
    await this.prisma.$transaction(async (tx) => {
      const live = await tx.session.findMany({ where: { userId, endedAt: null, expiresAt: { gt: now } }, select: { id: true } });
      await this.endAllOf(tx, userId, now);
      await tx.user.update({ where: { id: userId }, data: { tokenVersion: { increment: 1 } } });
      for (const { id } of live)
        await this.audit.recordBy(tx, actor, 'auth.session_ended', { type: 'user', id: userId }, { sessionId: id, by: 'admin' });
    });
    this.invalidation.invalidate('user', userId);
  }

  /** On every token the JWT strategy accepts: a Set insert, nothing more on the request path. */
  seen(id: string): void {
    this.seenSince.add(id);
  }

  /**
   * Writes lastSeenAt of the sessions used since the last flush: one statement per 5000 ids. A
   * failed batch is noted again for the next flush.
   */
  async flushLastSeen(now = new Date()): Promise<number> {
    if (this.seenSince.size === 0) return 0;
    const ids = [...this.seenSince];
    this.seenSince = new Set();
    let count = 0;
    for (let i = 0; i < ids.length; i += FLUSH_BATCH) {
      const batch = ids.slice(i, i + FLUSH_BATCH);
      try {
        const written = await this.prisma.session.updateMany({ where: { id: { in: batch }, endedAt: null }, data: { lastSeenAt: now } });
        count += written.count;
      } catch (err) {
        for (const id of ids.slice(i)) this.seenSince.add(id);
        throw err;
      }
    }
    return count;
  }

  /** Sessions past their token's expiry are no longer shown: their rows go (hourly). */
  purgeExpired(now = new Date()): Promise<{ count: number }> {
    return this.prisma.session.deleteMany({ where: { expiresAt: { lte: now } } });
  }

  onModuleInit(): void {
    this.flusher = setInterval(
      () => void this.flushLastSeen().catch((err: Error) => this.logger.warn(`Session lastSeenAt flush failed: ${err.message}`)),
      LAST_SEEN_FLUSH_MS,
    );
    this.flusher.unref();
    this.janitor = setInterval(
      () => void this.purgeExpired().catch((err: Error) => this.logger.warn(`Expired session purge failed: ${err.message}`)),
      3600_000,
    );
    this.janitor.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.janitor);
  }

  /** The last flush, once no request can arrive any more (see Lifecycle). */
  async stop(): Promise<void> {
    clearInterval(this.flusher);
    await this.flushLastSeen().catch((err: Error) => this.logger.warn(`Session lastSeenAt flush failed: ${err.message}`));
  }
}

/** "Chrome on macOS" from a User-Agent; a client that is no browser by its first product ("curl"); else "Unknown device". */
export function deviceOf(userAgent: string): string {
  if (userAgent.trim() === '') return 'Unknown device';
  const parser = Bowser.getParser(userAgent);
  const browser = parser.getBrowserName();
  const os = parser.getOSName();
  if (browser !== '' && os !== '') return `${browser} on ${os}`;
  if (browser !== '' || os !== '') return browser || os;
  const product = /^[A-Za-z][\w.-]{0,39}/.exec(userAgent.trim())?.[0];
  return product ?? 'Unknown device';
}

/** Ends a live session and revokes its tokens (until the session's expiry, which outlives every token of it); false if it had ended meanwhile. */
export async function endSession(
  tx: Prisma.TransactionClient,
  session: { readonly id: string; readonly userId: string; readonly expiresAt: Date },
  now: Date,
): Promise<boolean> {
  const ended = await tx.session.updateMany({ where: { id: session.id, endedAt: null }, data: { endedAt: now } });
  if (ended.count === 0) return false;
  await tx.revokedToken.createMany({
    data: [{ jti: session.id, userId: session.userId, expiresAt: session.expiresAt }],
    skipDuplicates: true,
  });
  return true;
}

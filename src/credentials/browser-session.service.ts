import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import type { RequestSource } from '../common/current-principal.decorator';
import type { Request } from '../common/request';
import { CacheInvalidation } from '../cache/invalidation.service';
import { AppError } from '../common/errors/app-error';
import { CHALLENGE } from '../common/errors/challenges';
import { hashOneTimeToken } from '../common/one-time-token';
import { PrismaService } from '../prisma/prisma.service';
import type { SessionTokenDto } from './dto/session.dto';
import { SESSION_TOKEN_SECONDS, StartedSession } from './session-cookie';
import { endSession } from './session.service';
import { TokenService } from './token.service';

/** A browser's one session, named by its cookie (docs/DECISIONS.md, "The dashboard's session cookie"). */
@Injectable()
export class BrowserSessionService {
  /** Each request's session look-up (see sessionOf). */
  private readonly byRequest = new WeakMap<Request, { readonly secret: string; readonly session: Promise<SessionRow | null> }>();

  constructor(
    private readonly prisma: PrismaService,
    private readonly tokens: TokenService,
    private readonly invalidation: CacheInvalidation,
    private readonly audit: AuditService,
  ) {}

  /**
   * A short-lived token of the session the browser's cookie names (POST /api/v1/auth/login/session):
   * its `jti` is the session's id, so ending the session refuses it with every other token of the
   * session. No new row: one browser, one session.
   */
  async exchange(req: Request, secret: string): Promise<SessionTokenDto> {
    const session = await this.sessionOf(req, secret);
    if (session === null || session.endedAt !== null)
      throw new AppError('invalid_token', 'This browser is signed out: sign in again.').withChallenge(CHALLENGE.invalidToken);
    const left = Math.floor((session.expiresAt.getTime() - Date.now()) / 1000);
    if (left < 1)
      throw new AppError('token_expired', 'The session of this browser expired: sign in again.').withChallenge(CHALLENGE.expiredToken);
    const issued = this.tokens.issue(session.user, session.id, Math.min(SESSION_TOKEN_SECONDS, left));
    return { ...issued, sessionExpiresIn: left };
  }

  /** The user of the live session `secret` names, or null: the exchange is then counted per client IP. */
  async liveUserOf(req: Request, secret: string): Promise<string | null> {
    const session = await this.sessionOf(req, secret);
    return isLive(session, new Date()) ? session.userId : null;
  }

  /**
   * The session `secret` names (findSession), looked up once per request: the exchange route's
   * authentication (whom to count) and its handler read the same row, so an exchange costs one query.
   */
  private sessionOf(req: Request, secret: string): Promise<SessionRow | null> {
    let looked = this.byRequest.get(req);
    if (looked === undefined || looked.secret !== secret)
      this.byRequest.set(req, (looked = { secret, session: Promise.resolve(findSession(this.prisma, secret)) }));
    return looked.session;
  }

  /**
   * A new sign-in in a browser whose cookie named a live session of the same user: that session ends
   * (its tokens are refused on every instance; audited `auth.session_ended` by `sign_in`), so the
   * browser keeps one session. Another user's session is left alone: signing in as someone else is no
   * sign-out of them.
   */
  async replace(started: StartedSession, oldSecret: string, source: RequestSource): Promise<void> {
    const now = new Date();
    const old = await findSession(this.prisma, oldSecret);
    if (!isLive(old, now) || old.userId !== started.userId || old.id === started.sessionId) return;
    await this.prisma.$transaction(async (tx) => {
      if (!(await endSession(tx, old, now))) return;
      await this.audit.record(tx, {
        accountId: old.user.accountId,
        actorId: old.userId,
        actorEmail: old.user.email,
        action: 'auth.session_ended',
        requestId: source.requestId,
        ip: source.ip,
        target: { type: 'user', id: old.userId },
        details: { sessionId: old.id, by: 'sign_in' },
      });
    });
    this.invalidation.invalidate('user', old.userId);
  }
}

/** The session `secret` names, with what a token (id, tokenVersion) and an audit event (accountId, email) need of its user. */
function findSession(prisma: PrismaService, secret: string) {
  return prisma.session.findUnique({
    where: { secretHash: hashOneTimeToken(secret) },
    include: { user: { select: { id: true, tokenVersion: true, accountId: true, email: true } } },
  });
}

type SessionRow = NonNullable<Awaited<ReturnType<typeof findSession>>>;

/** Not ended, and not past its end at `now`. */
function isLive<S extends { endedAt: Date | null; expiresAt: Date }>(session: S | null, now: Date): session is S {
  return session !== null && session.endedAt === null && session.expiresAt > now;
}

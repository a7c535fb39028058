import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { mergeMap, Observable } from 'rxjs';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { requestSourceOf } from '../common/current-principal.decorator';
import type { Reply, Request } from '../common/request';
import { SESSION_SECRET, sessionCookie, sessionSecretOf, StartedSession } from './session-cookie';
import { BrowserSessionService } from './browser-session.service';

/**
 * On a sign-in's answer that started a session: the browser's session cookie, after ending the
 * session its old cookie named when that was the same user's (one browser, one session).
 */
@Injectable()
export class SessionCookieInterceptor implements NestInterceptor {
  constructor(
    private readonly sessions: BrowserSessionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    const reply = context.switchToHttp().getResponse<Reply>();
    return next.handle().pipe(
      mergeMap(async (answer: unknown) => {
        const started = (answer as { [SESSION_SECRET]?: StartedSession } | null)?.[SESSION_SECRET];
        if (started === undefined) return answer; // the second step comes first
        const old = sessionSecretOf(req.headers.cookie);
        if (old !== undefined) await this.sessions.replace(started, old, requestSourceOf(req));
        const maxAge = Math.max(0, Math.floor((started.expiresAt.getTime() - Date.now()) / 1000));
        reply.header('set-cookie', sessionCookie(started.secret, maxAge, this.config.secureCookies));
        return answer;
      }),
    );
  }
}

/** A route whose answer may start a session: it sets the browser's session cookie (docs/API.md, "The dashboard's session"). */
export const StartsSession = () => UseInterceptors(SessionCookieInterceptor);

import { Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { PublicWithSessionCookie } from '../common/auth.decorators';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { AppError } from '../common/errors/app-error';
import { CHALLENGE } from '../common/errors/challenges';
import type { Request } from '../common/request';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { normalizeOrigin } from '../cors/origins';
import { SessionTokenDto } from '../credentials/dto/session.dto';
import { SESSION_COOKIE, SESSION_EXCHANGE_HEADER, SESSION_TOKEN_SECONDS, sessionSecretOf } from '../credentials/session-cookie';
import { BrowserSessionService } from '../credentials/browser-session.service';

/** The dashboard's tabs take their tokens here, from the browser's session cookie (docs/DECISIONS.md, "The dashboard's session cookie"). */
@ApiTags('Auth')
@Controller('auth/login')
export class SessionTokenController {
  private readonly ownOrigins: ReadonlySet<string>;

  constructor(
    private readonly sessions: BrowserSessionService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.ownOrigins = new Set(config.serviceOrigins);
  }

  @Post('session')
  @PublicWithSessionCookie()
  @HttpCode(200)
  @ApiOperation({
    summary: "A short-lived token of this browser's session (its cookie); for the dashboard's own pages",
    description: `Takes the \`${SESSION_COOKIE}\` cookie a sign-in set and answers a token of that session (at most ${SESSION_TOKEN_SECONDS} s, its \`jti\` the session's id); starts no new session. Only from Gatehouse's own origins (PUBLIC_URL's, DASHBOARD_ORIGINS), with the header. Counted per user (the plan's managementRequestsPerMinute) with a live session, else per client IP (30/min).`,
  })
  @ApiHeader({
    name: 'X-Gatehouse-Session',
    required: true,
    description: 'Must be `1`: a cross-site page cannot send it without a preflight.',
    schema: { type: 'string', enum: ['1'] },
  })
  @ApiOkResponse({ type: SessionTokenDto })
  @ApiResponse({
    status: 401,
    type: ErrorResponseDto,
    description:
      'missing_credentials — no session cookie; invalid_token — the session is unknown or ended (signed out); token_expired — the session expired',
  })
  @ApiResponse({
    status: 403,
    type: ErrorResponseDto,
    description:
      "insufficient_permissions — the X-Gatehouse-Session header is missing, or Origin is not one of Gatehouse's own (PUBLIC_URL's, DASHBOARD_ORIGINS)",
  })
  exchange(@Req() req: Request): Promise<SessionTokenDto> {
    const origin = req.headers.origin;
    if (req.headers[SESSION_EXCHANGE_HEADER] !== '1' || (origin !== undefined && !this.ownOrigins.has(normalizeOrigin(origin) ?? '')))
      throw new AppError('insufficient_permissions', "Only the dashboard's own pages may use the session cookie.");
    const secret = sessionSecretOf(req.headers.cookie);
    if (secret === undefined)
      throw new AppError('missing_credentials', 'This browser has no session: sign in.').withChallenge(CHALLENGE.bearer);
    return this.sessions.exchange(req, secret);
  }
}

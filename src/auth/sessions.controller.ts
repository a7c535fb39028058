import { Controller, Delete, Get, HttpCode, Param, Req } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { decode } from 'jsonwebtoken';
import { JwtAuthWhileEnrolling } from '../common/auth.decorators';
import { Actor, CurrentActor } from '../common/current-principal.decorator';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { IdParamDto } from '../common/dto/id-param.dto';
import type { Request } from '../common/request';
import { SessionListDto } from '../credentials/dto/session.dto';
import { SessionService } from '../credentials/session.service';

/** The `jti` of the request's bearer token, which the guard has verified. */
function tokenIdOf(req: Request): string {
  const token = /^bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')![1];
  return (decode(token, { json: true }) as { jti: string }).jti;
}

/** Open to a member who must still enrol a second factor (as signing out is): they may see and end their sessions. */
@ApiTags('Auth')
@Controller('auth/sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionService) {}

  @Get()
  @JwtAuthWhileEnrolling()
  @ApiOperation({ summary: "The caller's live sessions (one per sign-in), newest first; the calling one has current: true" })
  @ApiOkResponse({ type: SessionListDto })
  async list(@CurrentActor() actor: Actor, @Req() req: Request): Promise<SessionListDto> {
    return { data: await this.sessions.list(actor.userId, tokenIdOf(req)) };
  }

  @Delete(':id')
  @JwtAuthWhileEnrolling()
  @HttpCode(204)
  @ApiOperation({ summary: 'End one of your sessions: its token is refused from the next request on, on every instance' })
  @ApiNoContentResponse({ description: 'Ended.' })
  @ApiResponse({ status: 404, type: ErrorResponseDto, description: 'not_found — no such live session of yours' })
  end(@CurrentActor() actor: Actor, @Param() { id }: IdParamDto): Promise<void> {
    return this.sessions.endOwn(actor, id);
  }
}

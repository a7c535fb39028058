import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { JwtAuth, Public } from '../common/auth.decorators';
import { Actor, CurrentActor, CurrentPrincipal, requestSourceOf } from '../common/current-principal.decorator';
import { AcceptInvitationDto, PasswordResetIssuedDto, TokenResponseDto } from '../credentials/dto/login.dto';
import type { UserPrincipal } from '../common/principal';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { IdParamDto } from '../common/dto/id-param.dto';
import { UserIdParamDto } from '../common/dto/user-id-param.dto';
import type { Reply, Request } from '../common/request';
import {
  ChangeRoleDto,
  CreateInvitationDto,
  InvitationDto,
  InvitationPreviewDto,
  InvitationTokenDto,
  MemberDto,
  MemberListDto,
  PendingInvitationListDto,
} from './dto/team.dto';
import { TeamService } from './team.service';
import { StartsSession } from '../credentials/session-cookie.interceptor';

const NOT_FOUND = { status: 404, type: ErrorResponseDto, description: 'not_found — no such member in this account' };
const CONFLICT = { status: 409, type: ErrorResponseDto, description: 'conflict — the last OWNER cannot be demoted or removed' };

@ApiTags('Team')
@Controller('team')
export class TeamController {
  constructor(private readonly team: TeamService) {}

  @Get('members')
  @JwtAuth()
  @ApiOperation({ summary: 'Members of the account' })
  @ApiOkResponse({ type: MemberListDto })
  async members(@CurrentPrincipal() user: UserPrincipal): Promise<MemberListDto> {
    return { data: await this.team.members(user.accountId) };
  }

  @Post('invitations')
  @JwtAuth('OWNER', 'ADMIN')
  @ApiOperation({
    summary: 'Invite someone by email; the one-time token (7 days) is in the answer, once',
    description:
      'Replaces a pending invitation of the same email. Answers alike whether or not the email has a user (accepting then fails with 409).',
  })
  @ApiCreatedResponse({ type: InvitationDto })
  invite(@CurrentActor() actor: Actor, @Body() dto: CreateInvitationDto): Promise<InvitationDto> {
    return this.team.invite(actor, dto.email, dto.role);
  }

  @Get('invitations')
  @JwtAuth('OWNER', 'ADMIN')
  @ApiOperation({ summary: 'Pending invitations (never their token)' })
  @ApiOkResponse({ type: PendingInvitationListDto })
  async invitations(@CurrentPrincipal() user: UserPrincipal): Promise<PendingInvitationListDto> {
    return { data: await this.team.pending(user.accountId) };
  }

  @Delete('invitations/:id')
  @JwtAuth('OWNER', 'ADMIN')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a pending invitation: its token stops working at once (only an OWNER revokes an OWNER invitation)' })
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiResponse({ status: 404, type: ErrorResponseDto, description: 'not_found — no such pending invitation in this account' })
  revokeInvitation(@CurrentActor() actor: Actor, @Param() { id }: IdParamDto): Promise<void> {
    return this.team.revoke(actor, id);
  }

  @Patch('members/:userId')
  @JwtAuth('OWNER', 'ADMIN')
  @ApiOperation({ summary: "Change a member's role (only an OWNER grants or changes OWNER)" })
  @ApiOkResponse({ type: MemberDto })
  @ApiResponse(NOT_FOUND)
  @ApiResponse(CONFLICT)
  changeRole(@CurrentActor() actor: Actor, @Param() { userId }: UserIdParamDto, @Body() dto: ChangeRoleDto): Promise<MemberDto> {
    return this.team.changeRole(actor, userId, dto.role);
  }

  @Post('members/:userId/password-reset')
  @JwtAuth('OWNER', 'ADMIN')
  @ApiOperation({
    summary: 'Issue a one-time password reset token (1 h) for a member (only an OWNER for an OWNER)',
    description:
      '201 with the token to pass on; with SMTP_URL, 202: the member is e-mailed a link and the token is not in the answer. A new reset ends the older ones.',
  })
  @ApiCreatedResponse({ type: PasswordResetIssuedDto, description: 'The token, to pass on to the member.' })
  @ApiAcceptedResponse({ type: PasswordResetIssuedDto, description: 'E-mailed to the member (SMTP_URL).' })
  @ApiResponse(NOT_FOUND)
  async resetPassword(
    @CurrentActor() actor: Actor,
    @Param() { userId }: UserIdParamDto,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<PasswordResetIssuedDto> {
    const issued = await this.team.issuePasswordReset(actor, userId);
    void reply.status(issued.emailed ? 202 : 201);
    return issued;
  }

  @Delete('members/:userId/sessions')
  @JwtAuth('OWNER', 'ADMIN')
  @HttpCode(204)
  @ApiOperation({ summary: "End every session of a member: all their tokens stop working at once (only an OWNER for an OWNER's)" })
  @ApiNoContentResponse({ description: 'Ended.' })
  @ApiResponse(NOT_FOUND)
  endSessions(@CurrentActor() actor: Actor, @Param() { userId }: UserIdParamDto): Promise<void> {
    return this.team.endSessions(actor, userId);
  }

  @Delete('members/:userId')
  @JwtAuth('OWNER', 'ADMIN')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a member; their tokens stop working at once' })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiResponse(NOT_FOUND)
  @ApiResponse(CONFLICT)
  remove(@CurrentActor() actor: Actor, @Param() { userId }: UserIdParamDto): Promise<void> {
    return this.team.remove(actor, userId);
  }
}

/** Lives beside the team it joins; the path is under /auth because the token is the credential. */
@ApiTags('Auth')
@Controller('auth/invitations')
export class InvitationsController {
  constructor(private readonly team: TeamService) {}

  @Post('accept')
  @Public()
  @StartsSession()
  @HttpCode(200)
  @ApiOperation({ summary: 'Join an account with an invitation token; answers like login' })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 400, type: ErrorResponseDto, description: 'validation_failed — e.g. the password breaks the policy' })
  @ApiResponse({
    status: 401,
    type: ErrorResponseDto,
    description: 'invalid_credentials — the invitation is unknown, used, revoked (or its inviter removed or demoted) or expired',
  })
  @ApiResponse({ status: 409, type: ErrorResponseDto, description: 'conflict — a user with this email exists' })
  accept(@Body() dto: AcceptInvitationDto, @Req() req: Request): Promise<TokenResponseDto> {
    return this.team.acceptInvitation(dto.token, dto.password, requestSourceOf(req));
  }

  @Post('preview')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Whom an invitation joins, as whom, invited by whom: for its page, before a password is chosen' })
  @ApiOkResponse({ type: InvitationPreviewDto })
  @ApiResponse({
    status: 401,
    type: ErrorResponseDto,
    description: 'invalid_credentials — the invitation is unknown, used, revoked (or its inviter removed or demoted) or expired',
  })
  preview(@Body() dto: InvitationTokenDto): Promise<InvitationPreviewDto> {
    return this.team.previewInvitation(dto.token);
  }
}

import { Body, Controller, Get, HttpCode, Inject, Post, Put, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { decode } from 'jsonwebtoken';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import type { Reply, Request } from '../common/request';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { clearedSessionCookie } from '../credentials/session-cookie';
import { JwtAuth, JwtAuthWhileEnrolling, Public } from '../common/auth.decorators';
import { AuthService } from './auth.service';
import { Actor, CurrentActor, CurrentPrincipal, requestSourceOf } from '../common/current-principal.decorator';
import {
  AcceptedDto,
  AcceptPasswordResetDto,
  ChangePasswordDto,
  LoginDto,
  PasswordResetRequestDto,
  TokenResponseDto,
} from '../credentials/dto/login.dto';
import { PasswordResetService } from '../credentials/password-reset.service';
import { MeDto } from './dto/me.dto';
import { MfaRequiredDto } from './mfa/dto/mfa.dto';
import type { UserPrincipal } from '../common/principal';
import { StartsSession } from '../credentials/session-cookie.interceptor';

@ApiTags('Auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly resets: PasswordResetService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('login')
  @Public()
  @StartsSession()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Exchange email and password for a JWT',
    description: 'Limited per client IP (30/min) and to 10 failures per email per 15 minutes.',
  })
  @ApiExtraModels(TokenResponseDto, MfaRequiredDto)
  @ApiOkResponse({
    description:
      'A token; or, for a user with a second factor, the step that completes the sign-in (POST /api/v1/auth/login/mfa or /login/passkey).',
    schema: { oneOf: [{ $ref: getSchemaPath(TokenResponseDto) }, { $ref: getSchemaPath(MfaRequiredDto) }] },
  })
  @ApiResponse({ status: 400, type: ErrorResponseDto, description: 'validation_failed' })
  @ApiResponse({
    status: 401,
    type: ErrorResponseDto,
    description:
      'invalid_credentials — unknown email or wrong password (same answer for both; the message says how many attempts are left)',
  })
  login(@Body() dto: LoginDto, @Req() req: Request): Promise<TokenResponseDto | MfaRequiredDto> {
    return this.auth.login(dto.email, dto.password, requestSourceOf(req));
  }

  @Get('me')
  @JwtAuthWhileEnrolling()
  @ApiOperation({ summary: 'The caller: user, role, account and plan' })
  @ApiOkResponse({ type: MeDto })
  me(@CurrentPrincipal() user: UserPrincipal): Promise<MeDto> {
    return this.auth.me(user);
  }

  @Post('logout')
  @JwtAuthWhileEnrolling()
  @HttpCode(204)
  @ApiOperation({
    summary: "Sign out: this token's session ends — every token of it is refused from the next request on, on every instance",
    description: "Also clears the browser's session cookie (Set-Cookie with Max-Age=0).",
  })
  @ApiNoContentResponse({ description: 'Signed out.' })
  async logout(@CurrentActor() actor: Actor, @Req() req: Request, @Res({ passthrough: true }) reply: Reply): Promise<void> {
    // The guard verified the token; its id and expiry are read back from it.
    const token = /^bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')![1];
    const { jti, exp } = decode(token, { json: true }) as { jti: string; exp: number };
    await this.auth.logout(actor, { jti, exp });
    reply.header('set-cookie', clearedSessionCookie(this.config.secureCookies));
  }

  @Post('password-reset/request')
  @Public()
  @HttpCode(202)
  @ApiOperation({
    summary: '"Forgot password": e-mail a reset link (only with SMTP_URL)',
    description:
      'Answers 202 at once and alike for every email, known or not; the link (1 h, once) goes to the address if it has a user. 404 without SMTP_URL.',
  })
  @ApiAcceptedResponse({ type: AcceptedDto })
  @ApiResponse({ status: 404, type: ErrorResponseDto, description: 'not_found — e-mail is not enabled (SMTP_URL unset)' })
  requestReset(@Body() dto: PasswordResetRequestDto): AcceptedDto {
    this.resets.request(dto.email);
    return { status: 'accepted' };
  }

  @Post('password-reset/accept')
  @Public()
  @StartsSession()
  @HttpCode(200)
  @ApiOperation({ summary: 'Set a new password with a reset token; answers like login, and every older token of the user stops working' })
  @ApiOkResponse({
    description: 'A token; or, for a user with a second factor, the step that completes the sign-in.',
    schema: { oneOf: [{ $ref: getSchemaPath(TokenResponseDto) }, { $ref: getSchemaPath(MfaRequiredDto) }] },
  })
  @ApiResponse({
    status: 400,
    type: ErrorResponseDto,
    description: 'validation_failed — e.g. the password breaks the policy (the token stays usable)',
  })
  @ApiResponse({ status: 401, type: ErrorResponseDto, description: 'invalid_credentials — the reset token is unknown, used or expired' })
  async acceptReset(@Body() dto: AcceptPasswordResetDto, @Req() req: Request): Promise<TokenResponseDto | MfaRequiredDto> {
    const user = await this.resets.accept(dto.token, dto.newPassword, requestSourceOf(req));
    return this.auth.afterPasswordReset(user, requestSourceOf(req));
  }

  @Put('password')
  @JwtAuth()
  @StartsSession()
  @ApiOperation({ summary: 'Change the password; every older token stops working, the answer carries a new one' })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({
    status: 400,
    type: ErrorResponseDto,
    description: 'validation_failed — wrong current password or a new one that breaks the policy',
  })
  changePassword(@CurrentActor() actor: Actor, @Body() dto: ChangePasswordDto, @Req() req: Request): Promise<TokenResponseDto> {
    return this.auth.changePassword(actor, dto.currentPassword, dto.newPassword, req.ip);
  }
}

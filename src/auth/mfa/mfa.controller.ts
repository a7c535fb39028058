import { Body, Controller, Delete, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { JwtAuthWhileEnrolling, Public } from '../../common/auth.decorators';
import { Actor, CurrentActor, requestSourceOf } from '../../common/current-principal.decorator';
import { ErrorResponseDto } from '../../common/dto/error-response.dto';
import type { Request } from '../../common/request';
import { TokenResponseDto } from '../../credentials/dto/login.dto';
import { MfaLoginDto, MfaStatusDto, PasswordConfirmationDto, RecoveryCodesDto, TotpCodeDto, TotpEnrolmentDto } from './dto/mfa.dto';
import { MfaService } from './mfa.service';
import { StartsSession } from '../../credentials/session-cookie.interceptor';

const WRONG_PASSWORD = {
  status: 400,
  type: ErrorResponseDto,
  description: 'validation_failed — the password is wrong (counted toward the login lockout)',
};

@ApiTags('Auth')
@Controller('auth')
export class MfaController {
  constructor(private readonly mfa: MfaService) {}

  @Post('login/mfa')
  @Public()
  @StartsSession()
  @HttpCode(200)
  @ApiOperation({
    summary: 'The second step of a sign-in: a TOTP code or a recovery code',
    description:
      'With the `mfaToken` of the login answer (5 minutes, once). Wrong codes count toward the login lockout; five end the step.',
  })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 400, type: ErrorResponseDto, description: 'validation_failed' })
  @ApiResponse({
    status: 401,
    type: ErrorResponseDto,
    description: 'invalid_credentials — the code is wrong or used, or the mfaToken unknown, expired or used',
  })
  loginWithCode(@Body() dto: MfaLoginDto, @Req() req: Request): Promise<TokenResponseDto> {
    return this.mfa.completeWithCode(dto.mfaToken, dto.code, requestSourceOf(req));
  }

  @Get('mfa')
  @JwtAuthWhileEnrolling()
  @ApiOperation({ summary: 'The caller’s second factors, and whether the account requires one' })
  @ApiOkResponse({ type: MfaStatusDto })
  status(@CurrentActor() actor: Actor): Promise<MfaStatusDto> {
    return this.mfa.status(actor);
  }

  @Post('mfa/totp')
  @JwtAuthWhileEnrolling()
  @ApiOperation({
    summary: 'Start enrolling an authenticator app: a new TOTP secret',
    description: 'The secret stays pending until POST /api/v1/auth/mfa/totp/confirm; asking again replaces a pending one.',
  })
  @ApiCreatedResponse({ type: TotpEnrolmentDto })
  @ApiResponse({ status: 409, type: ErrorResponseDto, description: 'conflict — an authenticator app is on already' })
  startTotp(@CurrentActor() actor: Actor): Promise<TotpEnrolmentDto> {
    return this.mfa.startTotp(actor);
  }

  @Post('mfa/totp/confirm')
  @JwtAuthWhileEnrolling()
  @HttpCode(200)
  @ApiOperation({ summary: 'Confirm the authenticator app with a code: TOTP is on, and ten recovery codes are shown once' })
  @ApiOkResponse({ type: RecoveryCodesDto })
  @ApiResponse({
    status: 400,
    type: ErrorResponseDto,
    description: 'validation_failed — the code is wrong (counted toward the login lockout)',
  })
  @ApiResponse({ status: 409, type: ErrorResponseDto, description: 'conflict — no pending secret, or TOTP is on already' })
  confirmTotp(@CurrentActor() actor: Actor, @Body() dto: TotpCodeDto): Promise<RecoveryCodesDto> {
    return this.mfa.confirmTotp(actor, dto.code);
  }

  @Delete('mfa/totp')
  @JwtAuthWhileEnrolling()
  @HttpCode(204)
  @ApiOperation({ summary: 'Turn the authenticator app off (with the password)' })
  @ApiNoContentResponse({ description: 'Off.' })
  @ApiResponse(WRONG_PASSWORD)
  @ApiResponse({ status: 404, type: ErrorResponseDto, description: 'not_found — no authenticator app is on' })
  removeTotp(@CurrentActor() actor: Actor, @Body() dto: PasswordConfirmationDto): Promise<void> {
    return this.mfa.removeTotp(actor, dto.password);
  }

  @Post('mfa/recovery-codes')
  @JwtAuthWhileEnrolling()
  @ApiOperation({ summary: 'Ten new recovery codes (with the password), shown once; the old ones stop working' })
  @ApiCreatedResponse({ type: RecoveryCodesDto })
  @ApiResponse(WRONG_PASSWORD)
  @ApiResponse({ status: 409, type: ErrorResponseDto, description: 'conflict — no second factor is on' })
  regenerateRecoveryCodes(@CurrentActor() actor: Actor, @Body() dto: PasswordConfirmationDto): Promise<RecoveryCodesDto> {
    return this.mfa.regenerateRecoveryCodes(actor, dto.password);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { JwtAuthWhileEnrolling, Public } from '../../common/auth.decorators';
import { Actor, CurrentActor, requestSourceOf } from '../../common/current-principal.decorator';
import { ErrorResponseDto } from '../../common/dto/error-response.dto';
import { IdParamDto } from '../../common/dto/id-param.dto';
import type { Request } from '../../common/request';
import { TokenResponseDto } from '../../credentials/dto/login.dto';
import { PasswordConfirmationDto } from './dto/mfa.dto';
import {
  AddPasskeyDto,
  PasskeyDto,
  PasskeyListDto,
  PasskeyLoginDto,
  PasskeyOptionsRequestDto,
  RenamePasskeyDto,
  WEBAUTHN_OPTIONS_SCHEMA,
} from './dto/passkey.dto';
import { PasskeysService } from './passkeys.service';
import { StartsSession } from '../../credentials/session-cookie.interceptor';

const NOT_FOUND = { status: 404, type: ErrorResponseDto, description: 'not_found — no such passkey of the caller' };

@ApiTags('Auth')
@Controller('auth')
export class PasskeysController {
  constructor(private readonly passkeys: PasskeysService) {}

  @Post('passkeys/registration-options')
  @JwtAuthWhileEnrolling()
  @HttpCode(200)
  @ApiOperation({ summary: 'Options to register a passkey (for startRegistration of @simplewebauthn/browser); 5 minutes, once' })
  @ApiOkResponse({ schema: WEBAUTHN_OPTIONS_SCHEMA })
  registrationOptions(@CurrentActor() actor: Actor): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return this.passkeys.registrationOptions(actor);
  }

  @Post('passkeys')
  @JwtAuthWhileEnrolling()
  @ApiOperation({ summary: 'Register the passkey the browser made with those options' })
  @ApiCreatedResponse({ type: PasskeyDto })
  @ApiResponse({
    status: 400,
    type: ErrorResponseDto,
    description: 'validation_failed — the response does not verify, or its options are unknown, expired or used',
  })
  @ApiResponse({ status: 409, type: ErrorResponseDto, description: 'conflict — this passkey is registered already' })
  register(@CurrentActor() actor: Actor, @Body() dto: AddPasskeyDto): Promise<PasskeyDto> {
    return this.passkeys.register(actor, dto.response, dto.name);
  }

  @Get('passkeys')
  @JwtAuthWhileEnrolling()
  @ApiOperation({ summary: 'The caller’s passkeys' })
  @ApiOkResponse({ type: PasskeyListDto })
  async list(@CurrentActor() actor: Actor): Promise<PasskeyListDto> {
    return { data: await this.passkeys.list(actor) };
  }

  @Patch('passkeys/:id')
  @JwtAuthWhileEnrolling()
  @ApiOperation({ summary: 'Rename a passkey' })
  @ApiOkResponse({ type: PasskeyDto })
  @ApiResponse(NOT_FOUND)
  rename(@CurrentActor() actor: Actor, @Param() { id }: IdParamDto, @Body() dto: RenamePasskeyDto): Promise<PasskeyDto> {
    return this.passkeys.rename(actor, id, dto.name);
  }

  @Delete('passkeys/:id')
  @JwtAuthWhileEnrolling()
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a passkey (with the password)' })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiResponse({
    status: 400,
    type: ErrorResponseDto,
    description: 'validation_failed — the password is wrong (counted toward the login lockout)',
  })
  @ApiResponse(NOT_FOUND)
  remove(@CurrentActor() actor: Actor, @Param() { id }: IdParamDto, @Body() dto: PasswordConfirmationDto): Promise<void> {
    return this.passkeys.remove(actor, id, dto.password);
  }

  @Post('passkeys/authentication-options')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Options to sign in with a passkey (for startAuthentication of @simplewebauthn/browser); 5 minutes, once',
    description: 'With an mfaToken: the passkeys of that sign-in’s user. Without: any discoverable passkey (passwordless).',
  })
  @ApiOkResponse({ schema: WEBAUTHN_OPTIONS_SCHEMA })
  @ApiResponse({ status: 401, type: ErrorResponseDto, description: 'invalid_credentials — the mfaToken is unknown, expired or used' })
  authenticationOptions(@Body() dto: PasskeyOptionsRequestDto): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return this.passkeys.authenticationOptions(dto.mfaToken);
  }

  @Post('login/passkey')
  @Public()
  @StartsSession()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign in with a passkey: the second step (with the mfaToken) or alone',
    description:
      'Answers like login. A passkey alone must verify its user (PIN or biometric). Failures of a second step count toward the login lockout.',
  })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 400, type: ErrorResponseDto, description: 'validation_failed' })
  @ApiResponse({
    status: 401,
    type: ErrorResponseDto,
    description: 'invalid_credentials — the passkey was not accepted, or the mfaToken is unknown, expired or used',
  })
  login(@Body() dto: PasskeyLoginDto, @Req() req: Request): Promise<TokenResponseDto> {
    return this.passkeys.signInWith(dto.response, requestSourceOf(req), dto.mfaToken);
  }
}

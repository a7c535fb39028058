import { Body, CanActivate, Controller, Get, HttpCode, Inject, Injectable, Post, Req, UseGuards } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { IsEmail, IsString, Length, MaxLength } from 'class-validator';
import { Public } from '../auth/auth.decorators';
import { AcceptedDto, TokenResponseDto } from '../auth/dto/login.dto';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import type { Request } from '../common/request';
import { ChallengeDto } from '../widget/dto/challenge.dto';
import { ALTCHA_MAX_LENGTH } from '../widget/dto/challenge.dto';
import { SignupService } from './signup.service';

export class SignupDto {
  @ApiProperty({ description: 'The OWNER’s email address.', example: 'founder@example.com', maxLength: 254 })
  @IsString()
  @MaxLength(254)
  @IsEmail()
  readonly email!: string;

  @ApiProperty({ description: '12 to 256 characters, not the email address.', minLength: 12, maxLength: 256, format: 'password' })
  @IsString()
  @Length(1, 256)
  readonly password!: string;

  @ApiProperty({ description: 'The new account’s name.', example: 'Acme Inc.', minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  readonly accountName!: string;

  @ApiProperty({
    description: 'A solved GET /api/v1/auth/signup/challenge, as the altcha widget submits it (base64 JSON).',
    maxLength: ALTCHA_MAX_LENGTH,
  })
  @IsString()
  @Length(1, ALTCHA_MAX_LENGTH)
  readonly altcha!: string;
}

/** Closed sign-up answers 404 before the body is read, as if the routes did not exist. */
@Injectable()
class SignupOpen implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(): boolean {
    if (!this.config.signupOpen) throw new AppError('not_found', 'No such route.');
    return true;
  }
}

export class ConfirmSignupDto {
  @ApiProperty({ description: 'The token of the confirmation link (after #token=).', maxLength: 200 })
  @IsString()
  @Length(1, 200)
  readonly token!: string;
}

const CLOSED = { status: 404, type: ErrorResponseDto, description: 'not_found — sign-up is closed (SIGNUP=closed, the default)' };

/** Sign-up, when the operator opened it (SIGNUP=open); protected by Gatehouse's own proof-of-work challenge. */
@ApiTags('Auth')
@Controller('auth/signup')
@UseGuards(SignupOpen)
export class SignupController {
  constructor(private readonly signup: SignupService) {}

  @Get('challenge')
  @Public()
  @ApiOperation({ summary: 'A proof-of-work challenge (ALTCHA) for the sign-up form' })
  @ApiOkResponse({ type: ChallengeDto })
  @ApiResponse(CLOSED)
  challenge(@Req() req: Request): Promise<ChallengeDto> {
    return this.signup.challenge(req.ip);
  }

  @Post()
  @Public()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Create an account (plan free) and its OWNER',
    description:
      'Answers 202 alike whether or not the email already has a user — then nothing is created, and nothing says so; sign in with the password you chose. Needs a solved sign-up challenge. Limited per client IP.',
  })
  @ApiAcceptedResponse({ type: AcceptedDto })
  @ApiResponse({ status: 422, type: ErrorResponseDto, description: 'challenge_failed — the solution is wrong, expired or already used' })
  @ApiResponse(CLOSED)
  create(@Body() dto: SignupDto, @Req() req: Request): Promise<AcceptedDto> {
    return this.signup.create(dto, req.id);
  }

  @Post('confirm')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Confirm the address of a sign-up (with SMTP_URL, from the e-mailed link); answers like login, once' })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 401, type: ErrorResponseDto, description: 'invalid_credentials — the link is unknown, used or expired' })
  @ApiResponse(CLOSED)
  confirm(@Body() dto: ConfirmSignupDto, @Req() req: Request): Promise<TokenResponseDto> {
    return this.signup.confirm(dto.token, req.id);
  }
}

import { Body, CanActivate, Controller, Get, HttpCode, Inject, Injectable, Post, Req, UseGuards } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/auth.decorators';
import { AcceptedDto, TokenResponseDto } from '../credentials/dto/login.dto';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import type { Request } from '../common/request';
import { requestSourceOf } from '../common/current-principal.decorator';
import { ChallengeDto } from '../widget/dto/challenge.dto';
import { ConfirmSignupDto, SignupDto } from './dto/signup.dto';
import { SignupService } from './signup.service';
import { StartsSession } from '../credentials/session-cookie.interceptor';

/** Closed sign-up answers 404 before the body is read, as if the routes did not exist. */
@Injectable()
class SignupOpen implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(): boolean {
    if (!this.config.signupOpen) throw new AppError('not_found', 'No such route.');
    return true;
  }
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
    return this.signup.create(dto, requestSourceOf(req));
  }

  @Post('confirm')
  @Public()
  @StartsSession()
  @HttpCode(200)
  @ApiOperation({ summary: 'Confirm the address of a sign-up (with SMTP_URL, from the e-mailed link); answers like login, once' })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 401, type: ErrorResponseDto, description: 'invalid_credentials — the link is unknown, used or expired' })
  @ApiResponse(CLOSED)
  confirm(@Body() dto: ConfirmSignupDto, @Req() req: Request): Promise<TokenResponseDto> {
    return this.signup.confirm(dto.token, requestSourceOf(req));
  }
}

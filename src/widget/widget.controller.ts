import { Body, Controller, Get, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { ApiKeyAuth, OriginRefusalFailsChallenge } from '../common/auth.decorators';
import type { ApiKeyRequest } from '../common/current-principal.decorator';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { IssuedNonceDto } from '../nonces/dto/nonce.dto';
import { PlanLimitsService } from '../plans/plan-limits.service';
import { ChallengesService } from './challenges.service';
import { ChallengeDto, RedeemSolutionDto } from './dto/challenge.dto';
import { WidgetConfigDto } from './dto/widget-config.dto';

@ApiTags('Widget')
@Controller('widget')
export class WidgetController {
  constructor(
    private readonly accounts: PlanLimitsService,
    private readonly challenges: ChallengesService,
  ) {}

  @Get('config')
  @ApiKeyAuth('widget')
  @ApiOperation({ summary: 'Settings the browser widget needs' })
  @ApiOkResponse({ type: WidgetConfigDto })
  async config(@Req() { user: key }: ApiKeyRequest): Promise<WidgetConfigDto> {
    const { nonceTtlSeconds } = await this.accounts.limitsFor(key.accountId);
    return { accountId: key.accountId, nonceTtlSeconds };
  }

  @Get('challenge')
  @ApiKeyAuth('widget')
  @OriginRefusalFailsChallenge()
  @ApiOperation({
    summary: 'A fresh proof-of-work challenge (ALTCHA) for the widget to solve',
    description:
      'Signed, bound to this key, valid 5 minutes. Its difficulty (`challengeWaitMs`, a visitor’s median wait) is the key’s, else the plan’s, and rises while the key or the visitor asks far faster than usual (docs/API.md, "Challenge difficulty").',
  })
  @ApiOkResponse({ type: ChallengeDto })
  challenge(@Req() req: ApiKeyRequest): Promise<ChallengeDto> {
    return this.challenges.issue(req.user, req.ip);
  }

  @Post('nonces')
  @ApiKeyAuth('widget')
  @ApiOperation({
    summary: 'Exchange a solved challenge for a single-use nonce for the customer’s server to verify',
    description: 'One nonce per solution, whichever instance it is sent to. The nonce records the page’s host (Origin) for verify.',
  })
  @ApiCreatedResponse({ type: IssuedNonceDto })
  @ApiUnprocessableEntityResponse({
    description: 'challenge_failed: the solution is wrong, expired, already exchanged, or for another key’s challenge. No nonce is issued.',
    type: ErrorResponseDto,
  })
  issueNonce(@Req() req: ApiKeyRequest, @Body() dto: RedeemSolutionDto): Promise<IssuedNonceDto> {
    return this.challenges.redeem(req.user, dto.altcha, req.headers.origin);
  }
}

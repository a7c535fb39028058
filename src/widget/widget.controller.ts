import { Controller, Get, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../auth/auth.decorators';
import type { ApiKeyRequest } from '../auth/current-principal.decorator';
import { IssuedNonceDto } from '../nonces/dto/nonce.dto';
import { NoncesService } from '../nonces/nonces.service';
import { PlanLimitsService } from '../plans/plan-limits.service';

export class WidgetConfigDto {
  @ApiProperty({ description: 'The account the key belongs to.', format: 'uuid' })
  readonly accountId!: string;

  @ApiProperty({ description: 'Lifetime of a nonce issued to the widget, in seconds (an account setting).', type: 'integer', example: 300 })
  readonly nonceTtlSeconds!: number;
}

@ApiTags('Widget')
@Controller('widget')
export class WidgetController {
  constructor(
    private readonly accounts: PlanLimitsService,
    private readonly nonces: NoncesService,
  ) {}

  @Get('config')
  @ApiKeyAuth('widget')
  @ApiOperation({ summary: 'Settings the browser widget needs' })
  @ApiOkResponse({ type: WidgetConfigDto })
  async config(@Req() { user: key }: ApiKeyRequest): Promise<WidgetConfigDto> {
    const { nonceTtlSeconds } = await this.accounts.limitsFor(key.accountId);
    return { accountId: key.accountId, nonceTtlSeconds };
  }

  @Post('nonces')
  @ApiKeyAuth('widget')
  @ApiOperation({ summary: 'Issue a single-use nonce for the customer’s server to verify' })
  @ApiCreatedResponse({ type: IssuedNonceDto })
  issueNonce(@Req() { user: key }: ApiKeyRequest): Promise<IssuedNonceDto> {
    return this.nonces.issue(key);
  }
}

import { Controller, Get, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { JwtAuth } from '../common/auth.decorators';
import { CurrentPrincipal } from '../common/current-principal.decorator';
import type { UserPrincipal } from '../common/principal';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { AnalyticsService } from './analytics.service';
import { UsageQuery, UsageReportDto, WidgetStatsQuery, WidgetStatsReportDto } from './dto/usage.dto';

@ApiTags('Analytics')
@Controller('analytics')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('usage')
  @JwtAuth()
  @ApiOperation({
    summary: "Request counts of the account, grouped: up to the last request this instance answered; other instances' within 5 s",
  })
  @ApiOkResponse({ type: UsageReportDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found — apiKeyId is not a key of this account' })
  usage(@CurrentPrincipal() user: UserPrincipal, @Query() query: UsageQuery): Promise<UsageReportDto> {
    return this.analytics.usage(user.accountId, query);
  }

  @Get('widget')
  @JwtAuth()
  @ApiOperation({
    summary: 'The widget’s figures: challenges issued, solved and failed, nonces verified valid and invalid — per minute, hour, day or key',
  })
  @ApiOkResponse({ type: WidgetStatsReportDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found — apiKeyId is not a key of this account' })
  widget(@CurrentPrincipal() user: UserPrincipal, @Query() query: WidgetStatsQuery): Promise<WidgetStatsReportDto> {
    return this.analytics.widget(user.accountId, query);
  }
}

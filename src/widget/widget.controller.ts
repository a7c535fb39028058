import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../auth/auth.decorators';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { ApiKeyPrincipal } from '../auth/principal';

export const DEFAULT_NONCE_TTL_SECONDS = 300;

export class WidgetConfigDto {
  @ApiProperty({ description: 'The account the key belongs to.', format: 'uuid' })
  readonly accountId!: string;

  @ApiProperty({ description: 'Lifetime of a nonce issued to the widget, in seconds.', example: DEFAULT_NONCE_TTL_SECONDS })
  readonly nonceTtlSeconds!: number;
}

@ApiTags('Widget')
@Controller('widget')
export class WidgetController {
  @Get('config')
  @ApiKeyAuth('widget')
  @ApiOperation({ summary: 'Settings the browser widget needs' })
  @ApiOkResponse({ type: WidgetConfigDto })
  config(@CurrentPrincipal() key: ApiKeyPrincipal): WidgetConfigDto {
    return { accountId: key.accountId, nonceTtlSeconds: DEFAULT_NONCE_TTL_SECONDS };
  }
}

import { Controller, Get, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../auth/auth.decorators';
import type { ApiKeyRequest } from '../auth/current-principal.decorator';

export class PingDto {
  @ApiProperty({ description: 'Always true: the key works.', example: true })
  readonly ok!: true;

  @ApiProperty({ description: 'The account the key belongs to.', format: 'uuid' })
  readonly accountId!: string;
}

@ApiTags('Public API')
@Controller('public')
export class PublicApiController {
  @Get('ping')
  @ApiKeyAuth('public')
  @ApiOperation({ summary: 'Check that an API key works (and see its limits in the headers)' })
  @ApiOkResponse({ type: PingDto })
  ping(@Req() { user: key }: ApiKeyRequest): PingDto {
    return { ok: true, accountId: key.accountId };
  }
}

import { Controller, Get, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../common/auth.decorators';
import type { ApiKeyRequest } from '../common/current-principal.decorator';
import { PingDto } from './dto/ping.dto';

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

import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../auth/auth.decorators';
import type { ApiKeyRequest } from '../auth/current-principal.decorator';
import { NonceVerdictDto, VerifyNonceDto } from './dto/nonce.dto';
import { NoncesService } from './nonces.service';

@ApiTags('Nonces')
@Controller('nonces')
export class NoncesController {
  constructor(private readonly nonces: NoncesService) {}

  @Post('verify')
  @HttpCode(200)
  @ApiKeyAuth('verify')
  @ApiOperation({ summary: 'Verify (and use up) a nonce a widget obtained; true exactly once' })
  @ApiOkResponse({ type: NonceVerdictDto })
  verify(@Req() { user: key }: ApiKeyRequest, @Body() dto: VerifyNonceDto): Promise<NonceVerdictDto> {
    return this.nonces.verify(key, dto.nonce);
  }
}

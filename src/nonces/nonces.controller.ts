import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiKeyAuth } from '../common/auth.decorators';
import type { ApiKeyRequest } from '../common/current-principal.decorator';
import { InvalidNonceVerdictDto, NonceVerdictDto, ValidNonceVerdictDto, VerifyNonceDto } from './dto/nonce.dto';
import { NoncesService } from './nonces.service';

@ApiTags('Nonces')
@Controller('nonces')
export class NoncesController {
  constructor(private readonly nonces: NoncesService) {}

  @Post('verify')
  @HttpCode(200)
  @ApiKeyAuth('verify')
  @ApiOperation({ summary: 'Verify (and use up) a nonce a widget obtained; true exactly once' })
  @ApiExtraModels(ValidNonceVerdictDto, InvalidNonceVerdictDto)
  @ApiOkResponse({
    description: 'The verdict: valid once, then invalid with a reason.',
    schema: { oneOf: [{ $ref: getSchemaPath(ValidNonceVerdictDto) }, { $ref: getSchemaPath(InvalidNonceVerdictDto) }] },
  })
  verify(@Req() { user: key }: ApiKeyRequest, @Body() dto: VerifyNonceDto): Promise<NonceVerdictDto> {
    return this.nonces.verify(key, dto.nonce);
  }
}

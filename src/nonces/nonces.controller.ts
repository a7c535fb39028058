import { Body, Controller, Headers, HttpCode, Post, Req } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { ApiKeyAuth } from '../common/auth.decorators';
import type { ApiKeyRequest } from '../common/current-principal.decorator';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { AppError } from '../common/errors/app-error';
import { InvalidNonceVerdictDto, NonceVerdictDto, ValidNonceVerdictDto, VerifyNonceDto } from './dto/nonce.dto';
import { NoncesService } from './nonces.service';

/** 1–255 printable ASCII characters (a UUID is the usual choice). */
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

@ApiTags('Nonces')
@Controller('nonces')
export class NoncesController {
  constructor(private readonly nonces: NoncesService) {}

  @Post('verify')
  @HttpCode(200)
  @ApiKeyAuth('verify')
  @ApiOperation({ summary: 'Verify (and use up) a nonce a widget obtained; true exactly once' })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Makes a retry safe: the same key and nonce again, from this account within the nonce’s lifetime, answer the first verdict again with `replayed: true` (a valid nonce stays valid), on any instance. 1–255 printable characters, one per nonce; with another nonce: 422 idempotency_key_reused.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
  })
  @ApiExtraModels(ValidNonceVerdictDto, InvalidNonceVerdictDto)
  @ApiOkResponse({
    description: 'The verdict: valid once, then invalid with a reason.',
    schema: { oneOf: [{ $ref: getSchemaPath(ValidNonceVerdictDto) }, { $ref: getSchemaPath(InvalidNonceVerdictDto) }] },
  })
  @ApiUnprocessableEntityResponse({
    description: 'idempotency_key_reused: the Idempotency-Key was first used with another nonce.',
    type: ErrorResponseDto,
  })
  @ApiServiceUnavailableResponse({
    description:
      'service_unavailable: the database cannot be reached, a call with the same Idempotency-Key is still being answered, or a test key made to answer so (see Retry-After).',
    type: ErrorResponseDto,
  })
  verify(
    @Req() { user: key }: ApiKeyRequest,
    @Body() dto: VerifyNonceDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<NonceVerdictDto> {
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new AppError('validation_failed', 'Idempotency-Key must be 1–255 printable ASCII characters.', [
        { field: 'Idempotency-Key', message: 'must be 1–255 printable ASCII characters' },
      ]);
    }
    return this.nonces.verifyRequest(key, dto.nonce, idempotencyKey);
  }
}

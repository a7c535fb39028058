import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode } from '../errors/error-codes';

export class ErrorDetailDto {
  @ApiProperty({ description: 'The offending field (dotted path), or "body" for the body as a whole.', example: 'email' })
  readonly field!: string;

  @ApiProperty({ description: 'What is wrong with it.', example: 'email must be an email' })
  readonly message!: string;
}

export class ErrorResponseDto {
  @ApiProperty({ description: 'HTTP status, repeated in the body.', type: 'integer', example: 401 })
  readonly statusCode!: number;

  @ApiProperty({ description: 'Stable machine-readable error code.', enum: Object.keys(ERROR_STATUS), example: 'invalid_api_key' })
  readonly error!: ErrorCode;

  @ApiProperty({
    description: 'Explanation for a person; may change between versions.',
    example: 'The API key is unknown, revoked or expired.',
  })
  readonly message!: string;

  @ApiProperty({
    description: 'The request id, also in the X-Request-Id header; quote it to support.',
    example: '3f1c0c1e-8c1b-4a43-9a5e-2f7a1d0b9c11',
  })
  readonly requestId!: string;

  @ApiPropertyOptional({ description: 'Per-field problems; present on 400 only.', type: [ErrorDetailDto] })
  readonly details?: ErrorDetailDto[];
}

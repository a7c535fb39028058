import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { IsOmittable } from '../../common/validation';

export class RotateApiKeyDto {
  @ApiPropertyOptional({
    description: 'Seconds the old secret keeps working beside the new one.',
    type: 'integer',
    minimum: 0,
    maximum: 86400,
    default: 0,
  })
  @IsOmittable()
  @IsInt()
  @Min(0)
  @Max(86400)
  readonly gracePeriodSeconds?: number;
}

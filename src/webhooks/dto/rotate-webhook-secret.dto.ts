import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { IsOmittable } from '../../common/validation';

export class RotateWebhookSecretDto {
  @ApiPropertyOptional({
    description: 'Seconds during which deliveries carry signatures by both the old and the new secret.',
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

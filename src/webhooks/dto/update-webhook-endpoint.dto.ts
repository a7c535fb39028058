import { ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsString, Length, ValidateIf } from 'class-validator';
import { IsOmittable } from '../../common/validation';
import { CreateWebhookEndpointDto } from './create-webhook-endpoint.dto';

/**
 * Every field optional; an absent field keeps its value. `description: null` removes the
 * description; null for any other field is refused (400), never written.
 */
export class UpdateWebhookEndpointDto extends PartialType(OmitType(CreateWebhookEndpointDto, ['description'] as const), {
  skipNullProperties: false,
}) {
  @ApiPropertyOptional({
    description: 'A note to recognise the endpoint by; null removes it.',
    type: String,
    minLength: 1,
    maxLength: 200,
    nullable: true,
    example: 'Order service',
  })
  @IsOmittable()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @Length(1, 200)
  readonly description?: string | null;

  @ApiPropertyOptional({ description: 'false: no events are sent to it; true: they are again (and a failing streak is forgotten).' })
  @IsOmittable()
  @IsBoolean()
  readonly enabled?: boolean;
}

import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { IsOmittable } from '../../common/validation';
import { CreateWebhookEndpointDto } from './create-webhook-endpoint.dto';

export class UpdateWebhookEndpointDto extends PartialType(CreateWebhookEndpointDto) {
  @ApiPropertyOptional({ description: 'false: no events are sent to it; true: they are again (and a failing streak is forgotten).' })
  @IsOmittable()
  @IsBoolean()
  readonly enabled?: boolean;
}

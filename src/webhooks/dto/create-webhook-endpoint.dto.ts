import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsString, Length } from 'class-validator';
import { IsOmittable } from '../../common/validation';
import { MAX_URL_LENGTH } from '../url-policy';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../webhook-events';

export class CreateWebhookEndpointDto {
  @ApiProperty({
    description:
      'Where events are POSTed: an https URL without user or password whose host is a public address (with WEBHOOK_ALLOW_PRIVATE=true also http and private addresses, never a cloud metadata address).',
    maxLength: MAX_URL_LENGTH,
    example: 'https://shop.example.com/hooks/gatehouse',
  })
  @IsString()
  @Length(1, MAX_URL_LENGTH)
  readonly url!: string;

  @ApiPropertyOptional({
    description: 'The event types it receives; omitted or empty: all of them.',
    enum: WEBHOOK_EVENT_TYPES,
    isArray: true,
    maxItems: WEBHOOK_EVENT_TYPES.length,
    example: ['api_key.revoked', 'rate_limit.exceeded'],
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `each of events must be one of: ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  readonly events?: WebhookEventType[];

  @ApiPropertyOptional({ description: 'A note to recognise the endpoint by.', maxLength: 200, example: 'Order service' })
  @IsOmittable()
  @IsString()
  @Length(1, 200)
  readonly description?: string;
}

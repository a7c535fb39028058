import { ApiProperty } from '@nestjs/swagger';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../webhook-events';

export class WebhookEndpointDto {
  @ApiProperty({ description: 'Endpoint id (UUID).', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'Where events are POSTed.', example: 'https://shop.example.com/hooks/gatehouse' })
  readonly url!: string;

  @ApiProperty({ description: 'A note to recognise the endpoint by; null: none.', type: String, nullable: true })
  readonly description!: string | null;

  @ApiProperty({ description: 'The event types it receives; empty: all.', enum: WEBHOOK_EVENT_TYPES, isArray: true })
  readonly events!: WebhookEventType[];

  @ApiProperty({ description: 'Whether events are sent to it.' })
  readonly enabled!: boolean;

  @ApiProperty({
    description:
      'Why Gatehouse disabled it: gone (it answered 410), failing (5 days without a delivered event); null: enabled, or disabled by a person.',
    enum: ['gone', 'failing'],
    type: String,
    nullable: true,
  })
  readonly disabledReason!: 'gone' | 'failing' | null;

  @ApiProperty({
    description: 'Until when the previous secret also signs, after a rotation with a grace period; null: only the current one signs.',
    type: String,
    format: 'date-time',
    nullable: true,
  })
  readonly previousSecretExpiresAt!: string | null;

  @ApiProperty({
    description: 'When its latest delivery’s event happened; null: none yet.',
    type: String,
    format: 'date-time',
    nullable: true,
  })
  readonly lastDeliveryAt!: string | null;

  @ApiProperty({
    description: 'Its latest delivery: pending (an attempt is due), delivered or failed; null: none yet.',
    enum: ['pending', 'delivered', 'failed'],
    type: String,
    nullable: true,
  })
  readonly lastDeliveryStatus!: 'pending' | 'delivered' | 'failed' | null;

  @ApiProperty({
    description: 'The status code of the latest delivery’s last attempt; null: none yet, or no answer came.',
    type: 'integer',
    format: 'int32',
    nullable: true,
  })
  readonly lastDeliveryResponseStatus!: number | null;

  @ApiProperty({ description: 'When it was registered.', format: 'date-time' })
  readonly createdAt!: string;
}

export class CreatedWebhookEndpointDto extends WebhookEndpointDto {
  @ApiProperty({
    description: 'The signing secret (`whsec_…`): shown this once. Verify deliveries with it (Standard Webhooks).',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  readonly secret!: string;
}

export class RotatedWebhookSecretDto {
  @ApiProperty({ description: 'The new signing secret: shown this once.', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
  readonly secret!: string;

  @ApiProperty({
    description: 'Until when deliveries also carry the old secret’s signature; null: no grace period.',
    type: String,
    format: 'date-time',
    nullable: true,
  })
  readonly previousSecretExpiresAt!: string | null;
}

export class WebhookEndpointListDto {
  @ApiProperty({ description: "The account's endpoints, newest first.", type: [WebhookEndpointDto] })
  readonly data!: WebhookEndpointDto[];
}

export class AcceptedDeliveryDto {
  @ApiProperty({ description: 'The delivery that will be attempted (GET …/deliveries shows it).', format: 'uuid' })
  readonly deliveryId!: string;
}

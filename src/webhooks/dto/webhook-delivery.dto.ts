import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsUUID, Matches } from 'class-validator';
import { IsOmittable } from '../../common/validation';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '../webhook-events';

export class WebhookAttemptDto {
  @ApiProperty({ description: 'When it was sent.', format: 'date-time' })
  readonly startedAt!: string;

  @ApiProperty({ description: 'Milliseconds until the answer (or the failure).', type: 'integer', format: 'int32' })
  readonly durationMs!: number;

  @ApiProperty({ description: "The receiver's status code; null: no answer came.", type: 'integer', format: 'int32', nullable: true })
  readonly responseStatus!: number | null;

  @ApiProperty({
    description: 'Why it failed without an answer, or why the answer counts as a failure; null otherwise.',
    type: String,
    nullable: true,
  })
  readonly error!: string | null;

  @ApiProperty({ description: "The first 1 KB of the receiver's answer; null: none.", type: String, nullable: true })
  readonly responseBody!: string | null;
}

export class WebhookDeliveryDto {
  @ApiProperty({ description: 'Delivery id (UUID).', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({
    description: 'The webhook-id header: the same on every attempt of this delivery.',
    example: 'msg_2b6f0cc904d137be2e1730235f5664094b831186',
  })
  readonly messageId!: string;

  @ApiProperty({ description: 'Its event type.', enum: WEBHOOK_EVENT_TYPES })
  readonly eventType!: WebhookEventType;

  @ApiProperty({
    description: 'pending (an attempt is due at nextAttemptAt), delivered, or failed.',
    enum: ['pending', 'delivered', 'failed'],
  })
  readonly status!: 'pending' | 'delivered' | 'failed';

  @ApiProperty({ description: 'Attempts made so far.', type: 'integer', format: 'int32' })
  readonly attemptCount!: number;

  @ApiProperty({ description: 'When the next attempt is due; null: none.', type: String, format: 'date-time', nullable: true })
  readonly nextAttemptAt!: string | null;

  @ApiProperty({ description: 'When the event happened.', format: 'date-time' })
  readonly createdAt!: string;

  @ApiProperty({ description: 'When a 2xx came; null: not delivered.', type: String, format: 'date-time', nullable: true })
  readonly deliveredAt!: string | null;

  @ApiProperty({ description: 'Its attempts, newest first.', type: [WebhookAttemptDto] })
  readonly attempts!: WebhookAttemptDto[];
}

export class WebhookDeliveryPageDto {
  @ApiProperty({ description: 'Deliveries, newest first.', type: [WebhookDeliveryDto] })
  readonly data!: WebhookDeliveryDto[];

  @ApiProperty({ description: 'Pass as `cursor` for the next page; null on the last page.', type: String, nullable: true })
  readonly nextCursor!: string | null;
}

export class ListWebhookDeliveriesQuery {
  @ApiPropertyOptional({ description: 'nextCursor of the previous page.', maxLength: 200 })
  @IsOmittable()
  @Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'cursor must be a nextCursor value' })
  readonly cursor?: string;
}

export class DeliveryParamsDto {
  @ApiProperty({ description: 'Endpoint id (UUID).', format: 'uuid' })
  @IsUUID()
  readonly id!: string;

  @ApiProperty({ description: 'Delivery id (UUID).', format: 'uuid' })
  @IsUUID()
  readonly deliveryId!: string;
}

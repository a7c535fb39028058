import { ApiProperty } from '@nestjs/swagger';

export class WebhookEndpointDto {
  @ApiProperty({ description: 'Endpoint id (UUID).', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'Where events are POSTed.', example: 'https://shop.example.com/hooks/gatehouse' })
  readonly url!: string;

  @ApiProperty({ description: 'A note to recognise the endpoint by; null: none.', type: String, nullable: true })
  readonly description!: string | null;

  @ApiProperty({ description: 'When it was registered.', format: 'date-time' })
  readonly createdAt!: string;
}

export class WebhookEndpointListDto {
  @ApiProperty({ description: "The account's endpoints, newest first.", type: [WebhookEndpointDto] })
  readonly data!: WebhookEndpointDto[];
}

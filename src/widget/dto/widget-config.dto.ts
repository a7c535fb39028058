import { ApiProperty } from '@nestjs/swagger';

export class WidgetConfigDto {
  @ApiProperty({ description: 'The account the key belongs to.', format: 'uuid' })
  readonly accountId!: string;

  @ApiProperty({ description: 'Lifetime of a nonce issued to the widget, in seconds (an account setting).', type: 'integer', example: 300 })
  readonly nonceTtlSeconds!: number;
}

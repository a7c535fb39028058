import { ApiProperty } from '@nestjs/swagger';

export class PingDto {
  @ApiProperty({ description: 'Always true: the key works.', example: true })
  readonly ok!: true;

  @ApiProperty({ description: 'The account the key belongs to.', format: 'uuid' })
  readonly accountId!: string;
}

import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

export class IdParamDto {
  @ApiProperty({ description: 'Resource id (UUID).', format: 'uuid' })
  @IsUUID()
  readonly id!: string;
}

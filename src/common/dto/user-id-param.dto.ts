import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

export class UserIdParamDto {
  @ApiProperty({ description: 'User id (UUID).', format: 'uuid' })
  @IsUUID()
  readonly userId!: string;
}

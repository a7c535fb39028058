import { ApiProperty } from '@nestjs/swagger';
import { ROLES, Role } from '../principal';
import { PlanDto } from '../../plans/dto/plan.dto';

export class MeAccountDto {
  @ApiProperty({ description: 'Account id.', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'Account name.' })
  readonly name!: string;
}

export class MeDto {
  @ApiProperty({ description: 'User id.', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'Email address (lower-cased).' })
  readonly email!: string;

  @ApiProperty({ description: 'Role in the account.', enum: ROLES })
  readonly role!: Role;

  @ApiProperty({ description: 'The account.', type: MeAccountDto })
  readonly account!: MeAccountDto;

  @ApiProperty({ description: 'The account’s plan and limits.', type: PlanDto })
  readonly plan!: PlanDto;
}

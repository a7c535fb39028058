import { ApiProperty, PickType } from '@nestjs/swagger';
import { PlanDto } from '../../plans/dto/plan.dto';
import { MemberDto } from '../../team/dto/team.dto';

export class MeAccountDto {
  @ApiProperty({ description: 'Account id.', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'Account name.' })
  readonly name!: string;
}

/** The caller as a member (id, email, role), with the account and its plan. */
export class MeDto extends PickType(MemberDto, ['id', 'email', 'role'] as const) {
  @ApiProperty({ description: 'The account.', type: MeAccountDto })
  readonly account!: MeAccountDto;

  @ApiProperty({ description: 'The account’s plan and limits.', type: PlanDto })
  readonly plan!: PlanDto;
}

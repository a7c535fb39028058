import { ApiProperty, PickType } from '@nestjs/swagger';
import { NONCE_TTL_MAX, NONCE_TTL_MIN } from '../../accounts/dto/account.dto';
import { WAIT_LEVELS } from '../../widget/pow';
import { PlanDto } from '../../plans/dto/plan.dto';
import { MemberDto } from '../../team/dto/team.dto';

export class MeAccountDto {
  @ApiProperty({ description: 'Account id.', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'Account name.' })
  readonly name!: string;
}

export class BoundsDto {
  @ApiProperty({ description: 'The smallest value accepted.', type: 'integer' })
  readonly min!: number;

  @ApiProperty({ description: 'The largest value accepted.', type: 'integer' })
  readonly max!: number;
}

/** The bounds the API enforces on numeric settings, for a client to offer without copying them. */
export class SettingLimitsDto {
  @ApiProperty({
    description: 'The values of an API key’s `challengeWaitMs` (a visitor’s median wait, ms).',
    type: 'integer',
    isArray: true,
    example: [250, 500, 1000, 2000],
  })
  readonly challengeWaitMs!: readonly number[];

  @ApiProperty({ description: 'Bounds of the account’s `nonceTtlSeconds`.', type: BoundsDto })
  readonly nonceTtlSeconds!: BoundsDto;
}

export const SETTING_LIMITS: SettingLimitsDto = {
  challengeWaitMs: WAIT_LEVELS,
  nonceTtlSeconds: { min: NONCE_TTL_MIN, max: NONCE_TTL_MAX },
};

/** The caller as a member (id, email, role), with the account, its plan and the bounds of its settings. */
export class MeDto extends PickType(MemberDto, ['id', 'email', 'role'] as const) {
  @ApiProperty({ description: 'The account.', type: MeAccountDto })
  readonly account!: MeAccountDto;

  @ApiProperty({ description: 'The account’s plan and limits.', type: PlanDto })
  readonly plan!: PlanDto;

  @ApiProperty({
    description: 'The bounds of the settings a dashboard offers (the API refuses values outside them).',
    type: SettingLimitsDto,
  })
  readonly limits!: SettingLimitsDto;
}

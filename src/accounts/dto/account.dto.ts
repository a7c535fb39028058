import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { PlanDto } from '../../plans/dto/plan.dto';
import { PUBLIC_PLANS } from '../../plans/plans.controller';

export class AccountDto {
  @ApiProperty({ description: 'Account id.', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'Account name.', example: 'Acme Inc.' })
  readonly name!: string;

  @ApiProperty({ description: 'The plan and its limits.', type: PlanDto })
  readonly plan!: PlanDto;

  @ApiProperty({ description: 'Creation time.', type: String, format: 'date-time' })
  readonly createdAt!: string;
}

export class UpdateAccountDto {
  @ApiProperty({ description: 'New account name.', minLength: 1, maxLength: 100, example: 'Acme Inc.' })
  @IsString() @Length(1, 100)
  readonly name!: string;
}

export class ChangePlanDto {
  @ApiProperty({ description: 'The plan to move to; limits change at once.', enum: PUBLIC_PLANS })
  @IsIn(PUBLIC_PLANS)
  readonly plan!: (typeof PUBLIC_PLANS)[number];
}

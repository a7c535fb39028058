import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsString, Length, Max, Min } from 'class-validator';
import { IsOmittable } from '../../common/validation';
import { PlanDto } from '../../plans/dto/plan.dto';
import { PUBLIC_PLANS } from '../../plans/dto/plan.dto';

export class AccountDto {
  @ApiProperty({ description: 'Account id.', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'Account name.', example: 'Acme Inc.' })
  readonly name!: string;

  @ApiProperty({ description: 'The plan and its limits.', type: PlanDto })
  readonly plan!: PlanDto;

  @ApiProperty({ description: 'Lifetime of nonces issued to this account’s widgets, in seconds.', type: 'integer', example: 300 })
  readonly nonceTtlSeconds!: number;

  @ApiProperty({ description: 'Every member needs a second factor (TOTP or a passkey); one without can only enrol.' })
  readonly requireMfa!: boolean;

  @ApiProperty({ description: 'Creation time.', type: String, format: 'date-time' })
  readonly createdAt!: string;
}

export const NONCE_TTL_MIN = 30;
export const NONCE_TTL_MAX = 3600;

export class UpdateAccountDto {
  @ApiPropertyOptional({ description: 'New account name.', minLength: 1, maxLength: 100, example: 'Acme Inc.' })
  @IsOmittable()
  @IsString()
  @Length(1, 100)
  readonly name?: string;

  @ApiPropertyOptional({
    description: 'Lifetime of nonces issued from now on, in seconds.',
    type: 'integer',
    minimum: NONCE_TTL_MIN,
    maximum: NONCE_TTL_MAX,
    example: 300,
  })
  @IsOmittable()
  @IsInt()
  @Min(NONCE_TTL_MIN)
  @Max(NONCE_TTL_MAX)
  readonly nonceTtlSeconds?: number;

  @ApiPropertyOptional({
    description: 'Require a second factor of every member (OWNER only): a member without one can then only enrol.',
  })
  @IsOmittable()
  @IsBoolean()
  readonly requireMfa?: boolean;
}

export class ChangePlanDto {
  @ApiProperty({ description: 'The plan to move to; limits change at once.', enum: PUBLIC_PLANS })
  @IsIn(PUBLIC_PLANS)
  readonly plan!: (typeof PUBLIC_PLANS)[number];
}

export class DeleteAccountDto {
  @ApiProperty({
    description: 'The account’s name, exactly as GET /api/v1/account shows it: the confirmation.',
    example: 'Acme Inc.',
    minLength: 1,
    maxLength: 100,
  })
  @IsString()
  @Length(1, 100)
  readonly confirm!: string;
}

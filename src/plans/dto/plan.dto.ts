import { ApiProperty } from '@nestjs/swagger';

/** The plans an account can be on (PUT /api/v1/account/plan) and GET /api/v1/plans lists. */
export const PUBLIC_PLANS = ['free', 'pro', 'enterprise'] as const;

export class PlanDto {
  @ApiProperty({ description: 'Plan id.', example: 'pro' })
  readonly id!: string;

  @ApiProperty({ description: 'Display name.', example: 'Pro' })
  readonly name!: string;

  @ApiProperty({ description: 'Requests per minute per API key and endpoint.', type: 'integer', example: 600 })
  readonly apiRequestsPerMinute!: number;

  @ApiProperty({ description: 'Requests per minute per dashboard user and endpoint.', type: 'integer', example: 600 })
  readonly managementRequestsPerMinute!: number;

  @ApiProperty({
    description: 'Default difficulty of widget challenges, as a visitor’s median wait in ms, for keys without their own.',
    type: 'integer',
    enum: [250, 500, 1000, 2000],
    example: 500,
  })
  readonly challengeWaitMs!: number;
}

export class PlanListDto {
  @ApiProperty({ description: 'Every plan, smallest first.', type: [PlanDto] })
  readonly data!: PlanDto[];
}

export const toPlanDto = (p: PlanDto): PlanDto => ({
  id: p.id,
  name: p.name,
  apiRequestsPerMinute: p.apiRequestsPerMinute,
  managementRequestsPerMinute: p.managementRequestsPerMinute,
  challengeWaitMs: p.challengeWaitMs,
});

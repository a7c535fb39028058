import { ApiProperty } from '@nestjs/swagger';

export class PlanDto {
  @ApiProperty({ description: 'Plan id.', example: 'pro' })
  readonly id!: string;

  @ApiProperty({ description: 'Display name.', example: 'Pro' })
  readonly name!: string;

  @ApiProperty({ description: 'Requests per minute per API key and endpoint.', example: 600 })
  readonly apiRequestsPerMinute!: number;

  @ApiProperty({ description: 'Requests per minute per dashboard user and endpoint.', example: 600 })
  readonly managementRequestsPerMinute!: number;
}

export class PlanListDto {
  @ApiProperty({ description: 'Every plan, smallest first.', type: [PlanDto] })
  readonly data!: PlanDto[];
}

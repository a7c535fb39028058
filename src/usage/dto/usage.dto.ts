import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsString, IsUUID, Length } from 'class-validator';
import { IsOmittable } from '../../common/validation';

export const GROUP_BY = ['endpoint', 'apiKey', 'status', 'minute', 'hour', 'day'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

export class UsageQuery {
  @ApiPropertyOptional({ description: 'Start (inclusive, ISO 8601). Default: `to` minus the grain’s default range.', format: 'date-time' })
  @IsOmittable()
  @IsISO8601({ strict: true })
  readonly from?: string;

  @ApiPropertyOptional({ description: 'End (exclusive, ISO 8601). Default: now.', format: 'date-time' })
  @IsOmittable()
  @IsISO8601({ strict: true })
  readonly to?: string;

  @ApiProperty({ description: 'How to group the counts. Longest range: minute 24 h, hour 31 days, others 366 days.', enum: GROUP_BY })
  @IsIn(GROUP_BY)
  readonly groupBy!: GroupBy;

  @ApiPropertyOptional({ description: 'Only requests made with this API key (of your account).', format: 'uuid' })
  @IsOmittable()
  @IsUUID()
  readonly apiKeyId?: string;

  @ApiPropertyOptional({ description: 'Only this endpoint: method and route template, e.g. "GET /api/v1/public/ping".', maxLength: 200 })
  @IsOmittable()
  @IsString()
  @Length(1, 200)
  readonly endpoint?: string;
}

export class UsageRowDto {
  @ApiProperty({
    description: 'The group: an endpoint, an API key id, a status code, or the start of a minute/hour/day (ISO 8601, UTC).',
    example: 'GET /api/v1/public/ping',
  })
  readonly key!: string;

  @ApiProperty({ description: 'Requests in the group.', type: 'integer', example: 42 })
  readonly count!: number;
}

export class UsageReportDto {
  @ApiProperty({ description: 'Start of the range (inclusive).', type: String, format: 'date-time' })
  readonly from!: string;

  @ApiProperty({ description: 'End of the range (exclusive).', type: String, format: 'date-time' })
  readonly to!: string;

  @ApiProperty({ description: 'The grouping used.', enum: GROUP_BY })
  readonly groupBy!: GroupBy;

  @ApiProperty({ description: 'Counts per group, ordered by key.', type: [UsageRowDto] })
  readonly data!: UsageRowDto[];
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsString, IsUUID, Length } from 'class-validator';
import { IsOmittable } from '../../common/validation';

export const GROUP_BY = ['endpoint', 'apiKey', 'status', 'minute', 'hour', 'day'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

export const CALLERS = ['apiKey', 'user'] as const;
export type Caller = (typeof CALLERS)[number];

/** The range of an analytics query; its defaults and bounds depend on the grouping. */
class RangeQuery {
  @ApiPropertyOptional({ description: 'Start (inclusive, ISO 8601). Default: `to` minus the grain’s default range.', format: 'date-time' })
  @IsOmittable()
  @IsISO8601({ strict: true })
  readonly from?: string;

  @ApiPropertyOptional({ description: 'End (exclusive, ISO 8601). Default: now.', format: 'date-time' })
  @IsOmittable()
  @IsISO8601({ strict: true })
  readonly to?: string;
}

export class UsageQuery extends RangeQuery {
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

  @ApiPropertyOptional({
    description: 'Only answers of this status class, e.g. "4xx" (with groupBy=minute, one series of a chart per class).',
    enum: STATUS_CLASSES,
  })
  @IsOmittable()
  @IsIn(STATUS_CLASSES)
  readonly statusClass?: StatusClass;

  @ApiPropertyOptional({
    description: 'Only requests made with an API key (`apiKey`: your pages and servers) or by dashboard users (`user`). Default: both.',
    enum: CALLERS,
  })
  @IsOmittable()
  @IsIn(CALLERS)
  readonly caller?: Caller;
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

/** The range a report covers. */
class RangeReportDto {
  @ApiProperty({ description: 'Start of the range (inclusive).', type: String, format: 'date-time' })
  readonly from!: string;

  @ApiProperty({ description: 'End of the range (exclusive).', type: String, format: 'date-time' })
  readonly to!: string;
}

export class UsageReportDto extends RangeReportDto {
  @ApiProperty({ description: 'The grouping used.', enum: GROUP_BY })
  readonly groupBy!: GroupBy;

  @ApiProperty({ description: 'Counts per group, ordered by key.', type: [UsageRowDto] })
  readonly data!: UsageRowDto[];
}

export const WIDGET_GROUP_BY = ['minute', 'hour', 'day', 'apiKey'] as const;
export type WidgetGroupBy = (typeof WIDGET_GROUP_BY)[number];

export class WidgetStatsQuery extends RangeQuery {
  @ApiProperty({
    description: 'How to group: by minute (at most 24 h), hour (31 days), day or widget key (366 days).',
    enum: WIDGET_GROUP_BY,
  })
  @IsIn(WIDGET_GROUP_BY)
  readonly groupBy!: WidgetGroupBy;

  @ApiPropertyOptional({ description: 'Only this API key (of your account).', format: 'uuid' })
  @IsOmittable()
  @IsUUID()
  readonly apiKeyId?: string;
}

export class WidgetStatsRowDto {
  @ApiProperty({
    description: 'The group: the start of a minute/hour/day (ISO 8601, UTC) or an API key id.',
    example: '2026-01-01T12:00:00.000Z',
  })
  readonly key!: string;

  @ApiProperty({ description: 'Challenges handed out (GET /widget/challenge).', type: 'integer', example: 120 })
  readonly challengesIssued!: number;

  @ApiProperty({ description: 'Solutions exchanged for a nonce.', type: 'integer', example: 100 })
  readonly challengesSolved!: number;

  @ApiProperty({
    description:
      'Solutions refused (422 challenge_failed) and challenge requests refused for their origin (403): challengesFailedInvalid + challengesFailedExpired + challengesFailedAlreadyUsed + challengesFailedOrigin, and the failed ones counted before Gatehouse told their reasons apart.',
    type: 'integer',
    example: 6,
  })
  readonly challengesFailed!: number;

  @ApiProperty({
    description: 'Solutions refused as wrong, forged, malformed or another key’s: what a bot guessing or replaying elsewhere sends.',
    type: 'integer',
    example: 2,
  })
  readonly challengesFailedInvalid!: number;

  @ApiProperty({
    description:
      'Correct solutions sent after their challenge expired (5 minutes after it was issued): a visitor who solved and then waited before submitting.',
    type: 'integer',
    example: 1,
  })
  readonly challengesFailedExpired!: number;

  @ApiProperty({ description: 'Solutions exchanged for a nonce before: a form sent twice, or a replay.', type: 'integer', example: 1 })
  readonly challengesFailedAlreadyUsed!: number;

  @ApiProperty({
    description: 'Challenge requests refused for their origin (403): the page is not among the key’s allowedOrigins.',
    type: 'integer',
    example: 2,
  })
  readonly challengesFailedOrigin!: number;

  @ApiProperty({ description: 'Nonces verified valid (their first verification).', type: 'integer', example: 97 })
  readonly noncesValid!: number;

  @ApiProperty({
    description:
      'Verifications answered invalid: noncesUnknown + noncesExpired + noncesAlreadyUsed, and the invalid ones counted before Gatehouse told their reasons apart.',
    type: 'integer',
    example: 4,
  })
  readonly noncesInvalid!: number;

  @ApiProperty({
    description: 'Verifications answered invalid with reason unknown (not a nonce issued to this account).',
    type: 'integer',
    example: 2,
  })
  readonly noncesUnknown!: number;

  @ApiProperty({ description: 'Verifications answered invalid with reason expired.', type: 'integer', example: 1 })
  readonly noncesExpired!: number;

  @ApiProperty({
    description: 'Verifications answered invalid with reason already_used (a nonce verified before).',
    type: 'integer',
    example: 1,
  })
  readonly noncesAlreadyUsed!: number;
}

export class WidgetStatsReportDto extends RangeReportDto {
  @ApiProperty({ description: 'The grouping used.', enum: WIDGET_GROUP_BY })
  readonly groupBy!: WidgetGroupBy;

  @ApiProperty({ description: 'Counts per group, ordered by key; groups without any event are left out.', type: [WidgetStatsRowDto] })
  readonly data!: WidgetStatsRowDto[];
}

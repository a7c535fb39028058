import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsInt, Matches, Max, Min } from 'class-validator';
import { Type } from 'class-transformer';
import { IsOmittable } from '../../common/validation';
import { AUDIT_ACTIONS, AuditAction } from '../audit-actions';

export class AuditEventDto {
  @ApiProperty({ description: 'Event id.', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'What happened.', enum: AUDIT_ACTIONS })
  readonly action!: AuditAction;

  @ApiProperty({ description: 'The user who acted; null for a failed login.', type: String, format: 'uuid', nullable: true })
  readonly actorId!: string | null;

  @ApiProperty({ description: 'Email of the actor (or of the failed login attempt).', type: String, nullable: true })
  readonly actorEmail!: string | null;

  @ApiProperty({ description: 'Kind of thing acted on: api_key, user, invitation, account.', type: String, nullable: true })
  readonly targetType!: string | null;

  @ApiProperty({ description: 'Id of the thing acted on.', type: String, nullable: true })
  readonly targetId!: string | null;

  @ApiProperty({ description: 'Request id of the change (X-Request-Id).' })
  readonly requestId!: string;

  @ApiProperty({
    description:
      'What changed (never a secret), e.g. {"from":"free","to":"pro"}: names mapped to strings, numbers, booleans, lists of strings or null (a setting back to its default).',
    type: 'object',
    additionalProperties: {
      nullable: true,
      oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: { type: 'string' } }],
    },
    nullable: true,
    example: { from: 'free', to: 'pro' },
  })
  readonly details!: Record<string, unknown> | null;

  @ApiProperty({ description: 'When.', type: String, format: 'date-time' })
  readonly createdAt!: string;
}

export class AuditEventPageDto {
  @ApiProperty({ description: 'Events, newest first.', type: [AuditEventDto] })
  readonly data!: AuditEventDto[];

  @ApiProperty({ description: 'Pass as `cursor` for the next page; null on the last page.', type: String, nullable: true })
  readonly nextCursor!: string | null;
}

export class ListAuditEventsQuery {
  @ApiPropertyOptional({ description: 'Only events at or after this time (ISO 8601).', format: 'date-time' })
  @IsOmittable()
  @IsISO8601({ strict: true })
  readonly from?: string;

  @ApiPropertyOptional({ description: 'Only events before this time (ISO 8601).', format: 'date-time' })
  @IsOmittable()
  @IsISO8601({ strict: true })
  readonly to?: string;

  @ApiPropertyOptional({ description: 'Only this action.', enum: AUDIT_ACTIONS })
  @IsOmittable()
  @IsIn(AUDIT_ACTIONS)
  readonly action?: AuditAction;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page.', maxLength: 200 })
  @IsOmittable()
  @Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'cursor must be a nextCursor value' })
  readonly cursor?: string;

  @ApiPropertyOptional({ description: 'Page size.', type: 'integer', minimum: 1, maximum: 200, default: 50 })
  @IsOmittable()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  readonly limit?: number;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsInt, IsUUID, Matches, Max, Min } from 'class-validator';
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

  @ApiProperty({
    description: 'Email of the actor (or of the failed login attempt), as it was when the event was recorded.',
    type: String,
    nullable: true,
  })
  readonly actorEmail!: string | null;

  @ApiProperty({
    description:
      'The actor as the account knows them now (their email), read when the log is read; null for a failed login and for a member removed since (then `actorId` and `actorEmail` say who it was).',
    type: String,
    nullable: true,
  })
  readonly actorName!: string | null;

  @ApiProperty({ description: 'Kind of thing acted on: api_key, user, invitation, account.', type: String, nullable: true })
  readonly targetType!: string | null;

  @ApiProperty({ description: 'Id of the thing acted on.', type: String, nullable: true })
  readonly targetId!: string | null;

  @ApiProperty({
    description:
      "The thing acted on as named now, read when the log is read: an API key's name, a member's or an invitation's email, the account's name; null when it no longer exists (a removed member: `targetId` says which).",
    type: String,
    nullable: true,
  })
  readonly targetName!: string | null;

  @ApiProperty({ description: 'Request id of the change (X-Request-Id).' })
  readonly requestId!: string;

  @ApiProperty({
    description:
      'The client IP of the request, as the app resolves it (TRUST_PROXY); null for events recorded before IPs were kept and for changes made outside a request.',
    type: String,
    nullable: true,
  })
  readonly ip!: string | null;

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

/** The filters the list and the CSV export share. */
export class AuditFiltersQuery {
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

  @ApiPropertyOptional({ description: 'Only events of this actor (a user id, `actorId` of an event).', format: 'uuid' })
  @IsOmittable()
  @IsUUID()
  readonly actorId?: string;
}

export class ListAuditEventsQuery extends AuditFiltersQuery {
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

import { ApiProperty } from '@nestjs/swagger';
import { API_KEY_SCOPES, ApiKeyScope } from '../../common/principal';

/** An API key as lists and reads show it: never its hash, and no secret but a widget-only key's (public anyway). */
export class ApiKeyDto {
  @ApiProperty({ description: 'Key id (UUID).', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'Name given by the account.', example: 'Checkout widget' })
  readonly name!: string;

  @ApiProperty({ description: 'Visible start of the secret, to recognise a key.', example: 'gh_4fQk81Zp' })
  readonly prefix!: string;

  @ApiProperty({ description: 'What the key may call.', enum: API_KEY_SCOPES, isArray: true })
  readonly scopes!: ApiKeyScope[];

  @ApiProperty({
    description: 'Browser origins allowed to use the key; empty means any origin.',
    type: [String],
    example: ['https://shop.example.com'],
  })
  readonly allowedOrigins!: string[];

  @ApiProperty({
    description:
      'The whole key, for an active key whose one scope is widget: it is public anyway (every page that embeds the widget carries it). Null for a key with the verify or public scope (shown once, when made or rotated), for a revoked key, and for a widget key made before widget keys were kept readable (rotate it to get one).',
    type: String,
    nullable: true,
    example: 'gh_4fQk81ZpY0c2...',
  })
  readonly widgetKey!: string | null;

  @ApiProperty({
    description:
      "Difficulty of the key's widget challenges as a visitor's median wait in ms (250, 500, 1000, 2000); null: the plan's default.",
    type: 'integer',
    enum: [250, 500, 1000, 2000],
    nullable: true,
    example: null,
  })
  readonly challengeWaitMs!: number | null;

  @ApiProperty({
    description: 'A test key’s fixed verify verdict (docs/API.md, "Test keys"); null for every real key.',
    enum: ['valid', 'unknown', 'expired', 'already_used', 'unavailable'],
    nullable: true,
    example: null,
  })
  readonly testVerdict!: 'valid' | 'unknown' | 'expired' | 'already_used' | 'unavailable' | null;

  @ApiProperty({ description: 'active, or revoked (for good).', enum: ['active', 'revoked'] })
  readonly status!: 'active' | 'revoked';

  @ApiProperty({ description: 'When the key stops working; null: never.', type: String, format: 'date-time', nullable: true })
  readonly expiresAt!: string | null;

  @ApiProperty({
    description: 'Last successful use (recorded within a few seconds); null: never used.',
    type: String,
    format: 'date-time',
    nullable: true,
  })
  readonly lastUsedAt!: string | null;

  @ApiProperty({
    description: 'After a rotation with a grace period: when the previous secret stops working.',
    type: String,
    format: 'date-time',
    nullable: true,
  })
  readonly previousSecretExpiresAt!: string | null;

  @ApiProperty({ description: 'Creation time.', type: String, format: 'date-time' })
  readonly createdAt!: string;

  @ApiProperty({ description: 'Revocation time; null while active.', type: String, format: 'date-time', nullable: true })
  readonly revokedAt!: string | null;
}

export class ApiKeyWithSecretDto extends ApiKeyDto {
  @ApiProperty({ description: 'The secret. Shown this once: store it now, it cannot be read again.', example: 'gh_4fQk81ZpY0c2...' })
  readonly key!: string;
}

export class ApiKeyListDto {
  @ApiProperty({ description: "The account's keys, newest first.", type: [ApiKeyDto] })
  readonly data!: ApiKeyDto[];
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

const NONCE_EXAMPLE =
  'ghn_AW8cKzoNTk9ai2x9jp8KGyw_Kpwei31qX049LBsKn459awzJAGsMyixzaG9wLmV4YW1wbGUuY29tQV4yWT5mNXPwR524FxWPdqAqQzBLjnJeFcMpdANV7bU';

/**
 * The longest string verify reads. Anything shorter that is not one of our nonces is a verdict
 * (`unknown`), not a malformed request: a customer's server passes on whatever its form received.
 */
export const VERIFY_MAX_LENGTH = 512;

export class IssuedNonceDto {
  @ApiProperty({
    description: 'Single-use nonce for the customer’s server to verify: an opaque signed token of at most 458 characters.',
    example: NONCE_EXAMPLE,
  })
  readonly nonce!: string;

  @ApiProperty({ description: 'After this the nonce verifies as expired.', type: String, format: 'date-time' })
  readonly expiresAt!: string;
}

export class VerifyNonceDto {
  @ApiProperty({
    description:
      'What the widget put in the form (the gatehouse-nonce field): a nonce issued by POST /api/v1/widget/nonces. Any other string verifies as unknown.',
    example: NONCE_EXAMPLE,
    maxLength: VERIFY_MAX_LENGTH,
  })
  @IsString()
  @MaxLength(VERIFY_MAX_LENGTH)
  readonly nonce!: string;
}

export const INVALID_REASONS = ['unknown', 'expired', 'already_used'] as const;
export type InvalidReason = (typeof INVALID_REASONS)[number];

/** What the proof of work behind a nonce cost the browser that solved it (docs/API.md, "Effort"). */
export class EffortDto {
  @ApiProperty({ description: 'The proof of work’s key-derivation function.', enum: ['PBKDF2/SHA-256'] })
  readonly algorithm!: 'PBKDF2/SHA-256';

  @ApiProperty({ description: 'Iterations a candidate.', type: 'integer', example: 1000 })
  readonly cost!: number;

  @ApiProperty({
    description:
      'What this very challenge takes a person’s browser to compute on the reference machine (2 cores, Chromium): its solution’s place in the search × the measured time a candidate.',
    type: 'integer',
    example: 412,
  })
  readonly expectedSolveMs!: number;

  @ApiProperty({
    description:
      'Measured by Gatehouse: from issuing the challenge to receiving its solution. Far below expectedSolveMs (say under a tenth) is what a precomputed or leaked solution, or much faster hardware, looks like.',
    type: 'integer',
    example: 530,
  })
  readonly solveMs!: number;

  @ApiProperty({ description: 'Whether a surge of challenge requests (the key’s or the visitor’s) raised the difficulty.', example: false })
  readonly surge!: boolean;
}

/** The first verification of a live nonce of this account. */
export class ValidNonceVerdictDto {
  @ApiProperty({ description: 'Always true here: the nonce was live and is now used.', enum: [true] })
  readonly valid!: true;

  @ApiProperty({ description: 'When the nonce was issued.', type: String, format: 'date-time' })
  readonly issuedAt!: string;

  @ApiProperty({
    description:
      'Host of the page the challenge was solved on (its Origin); null when the widget request carried no Origin. Compare it with your own site.',
    type: String,
    nullable: true,
    example: 'shop.example.com',
  })
  readonly hostname!: string | null;

  @ApiProperty({
    description: 'What the proof of work cost; null only for nonces issued before Gatehouse recorded it.',
    type: EffortDto,
    nullable: true,
  })
  readonly effort!: EffortDto | null;

  @ApiPropertyOptional({
    description: 'Present (true) when this is the first verdict answered again for a repeated Idempotency-Key and nonce.',
    enum: [true],
  })
  readonly replayed?: true;
}

/** Any other verification. */
export class InvalidNonceVerdictDto {
  @ApiProperty({ description: 'Always false here.', enum: [false] })
  readonly valid!: false;

  @ApiProperty({
    description: 'Why not: unknown (not a nonce issued to this account), expired, already_used.',
    enum: INVALID_REASONS,
  })
  readonly reason!: InvalidReason;

  @ApiPropertyOptional({
    description: 'Present (true) when this is the first verdict answered again for a repeated Idempotency-Key and nonce.',
    enum: [true],
  })
  readonly replayed?: true;
}

export type NonceVerdictDto = ValidNonceVerdictDto | InvalidNonceVerdictDto;

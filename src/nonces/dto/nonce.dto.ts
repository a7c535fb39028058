import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';

/** "ghn_" + 43 base64url characters (256 random bits). */
export const NONCE_PATTERN = /^ghn_[A-Za-z0-9_-]{43}$/;

export class IssuedNonceDto {
  @ApiProperty({ description: 'Single-use nonce for the customer’s server to verify. 256 random bits.', example: 'ghn_1Jv0...' })
  readonly nonce!: string;

  @ApiProperty({ description: 'After this the nonce verifies as expired.', type: String, format: 'date-time' })
  readonly expiresAt!: string;
}

export class VerifyNonceDto {
  @ApiProperty({ description: 'A nonce issued by POST /api/v1/widget/nonces.', example: 'ghn_1Jv0...' })
  @IsString() @Matches(NONCE_PATTERN, { message: 'nonce must be a nonce issued by POST /api/v1/widget/nonces' })
  readonly nonce!: string;
}

export const INVALID_REASONS = ['unknown', 'expired', 'already_used'] as const;
export type InvalidReason = (typeof INVALID_REASONS)[number];

export class NonceVerdictDto {
  @ApiProperty({ description: 'True once, for the first verification of a live nonce of this account.' })
  readonly valid!: boolean;

  @ApiProperty({ description: 'When the nonce was issued (valid only).', type: String, format: 'date-time', required: false })
  readonly issuedAt?: string;

  @ApiProperty({
    description: 'Why not (invalid only): unknown (never issued to this account, or purged an hour after expiry), expired, already_used.',
    enum: INVALID_REASONS,
    required: false,
  })
  readonly reason?: InvalidReason;
}

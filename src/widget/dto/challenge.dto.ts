import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

/** An ALTCHA challenge (the v1 format of the `altcha` web component 2.x and altcha-lib's `v1` API). */
export class ChallengeDto {
  @ApiProperty({ description: 'Hash function of the puzzle.', enum: ['SHA-256'] })
  readonly algorithm!: 'SHA-256';

  @ApiProperty({
    description: 'SHA-256 (hex) of salt + the secret number: find the number.',
    example: 'c2fc6c6adf8ba0f575a35f48df52c0968a3dcd3c577c2769dc2f1035943b975e',
  })
  readonly challenge!: string;

  @ApiProperty({
    description:
      'The secret number is at most this: the difficulty (docs/API.md, "Challenge difficulty"). A browser tries about half of it.',
    type: 'integer',
    example: 100000,
  })
  readonly maxnumber!: number;

  @ApiProperty({
    description: 'Random salt and, after "?", the signed parameters: expires (Unix seconds) and the key the challenge was issued to.',
    example: '4a3c1d8e0f5b6a7c9d2e1f30?expires=1767225600&key=6f1c2a9e-0b7d-4e53-9a1f-3c2d5e8f7a60',
  })
  readonly salt!: string;

  @ApiProperty({
    description: 'HMAC-SHA-256 (hex) of the challenge by Gatehouse: a solution to anything else is refused.',
    example: '9d1e3b…',
  })
  readonly signature!: string;
}

/** The longest `altcha` payload read: a solution is about 400 characters. */
export const ALTCHA_MAX_LENGTH = 4096;

export class RedeemSolutionDto {
  @ApiProperty({
    description:
      "The solution as the altcha widget submits it: base64 of JSON {algorithm, challenge, number, salt, signature}. Wrong, expired, reused or another key's: 422 challenge_failed.",
    maxLength: ALTCHA_MAX_LENGTH,
    example: 'eyJhbGdvcml0aG0iOiJTSEEtMjU2IiwiY2hhbGxlbmdlIjoiLi4uIiwibnVtYmVyIjo0MjAwMCwic2FsdCI6Ii4uLiIsInNpZ25hdHVyZSI6Ii4uLiJ9',
  })
  @IsString()
  @MaxLength(ALTCHA_MAX_LENGTH)
  readonly altcha!: string;
}

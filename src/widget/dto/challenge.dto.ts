import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

/** The signed `data` of a Gatehouse challenge. */
export class ChallengeDataDto {
  @ApiPropertyOptional({ description: 'The API key the challenge was issued to (a widget challenge).', format: 'uuid' })
  readonly key?: string;

  @ApiPropertyOptional({ description: 'Present instead of `key` on Gatehouse’s own sign-up challenge.', enum: ['signup'] })
  readonly purpose?: 'signup';

  @ApiProperty({
    description: 'When the challenge was issued (ms since the epoch): the start of the solve time verify reports.',
    type: 'integer',
    format: 'int64',
  })
  readonly issuedAt!: number;

  @ApiProperty({
    description: 'The surge level that raised the difficulty (0: none; each level doubles the work).',
    type: 'integer',
    minimum: 0,
    maximum: 4,
  })
  readonly surge!: number;

  @ApiProperty({
    description: 'HMAC of the solution by Gatehouse, so the exchange can trust the counter without deriving.',
    example: '5e0c…',
  })
  readonly tag!: string;
}

/** ALTCHA v2 challenge parameters (altcha-lib 2.x, the `altcha` web component 3.x), signed as a whole. */
export class ChallengeParametersDto {
  @ApiProperty({ description: 'Key-derivation function of a candidate.', enum: ['PBKDF2/SHA-256'] })
  readonly algorithm!: 'PBKDF2/SHA-256';

  @ApiProperty({
    description: 'Random, hex: a candidate’s password is nonce ‖ counter (uint32, big-endian).',
    example: '8c2d1f0e4b6a79305d1e2c3b4a5f6e70',
  })
  readonly nonce!: string;

  @ApiProperty({ description: 'Random, hex: the derivation’s salt.', example: '1a2b3c4d5e6f708192a3b4c5d6e7f809' })
  readonly salt!: string;

  @ApiProperty({ description: 'PBKDF2 iterations a candidate.', type: 'integer', example: 1000 })
  readonly cost!: number;

  @ApiProperty({ description: 'Bytes of a derived key.', type: 'integer', example: 32 })
  readonly keyLength!: number;

  @ApiProperty({
    description:
      'Hex: the solution is the smallest counter from 0 whose derived key starts with this (counter mode: the server drew the counter uniformly up to the difficulty’s maximum and derived its key).',
    example: '9f3a0c…',
  })
  readonly keyPrefix!: string;

  @ApiProperty({
    description: 'HMAC of the solution’s derived key: checking a solution costs an HMAC, not a derivation.',
    example: 'c41e…',
  })
  readonly keySignature!: string;

  @ApiProperty({ description: 'Unix seconds after which a solution is refused (5 minutes after issue).', type: 'integer' })
  readonly expiresAt!: number;

  @ApiProperty({
    description: 'Gatehouse’s own, signed with the rest: whom the challenge is for, when it was issued, its surge.',
    type: ChallengeDataDto,
  })
  readonly data!: ChallengeDataDto;
}

/** An ALTCHA v2 proof-of-work challenge in counter mode (docs/API.md, "Challenges"). */
export class ChallengeDto {
  @ApiProperty({ description: 'What the widget needs to solve the challenge, and what it was issued for.', type: ChallengeParametersDto })
  readonly parameters!: ChallengeParametersDto;

  @ApiProperty({
    description:
      'HMAC-SHA-256 (hex) by Gatehouse of the parameters as canonical JSON (keys sorted): a solution to anything else is refused.',
    example: '9d1e3b…',
  })
  readonly signature!: string;
}

/** The longest `altcha` payload read: a solution is about 900 characters. */
export const ALTCHA_MAX_LENGTH = 4096;

export class RedeemSolutionDto {
  @ApiProperty({
    description:
      "The solution as the altcha widget submits it: base64 of JSON {challenge: {parameters, signature}, solution: {counter, derivedKey}}. Wrong, expired, reused, another key's, or ALTCHA's v1 format: 422 challenge_failed.",
    maxLength: ALTCHA_MAX_LENGTH,
    example:
      'eyJjaGFsbGVuZ2UiOnsicGFyYW1ldGVycyI6ey4uLn0sInNpZ25hdHVyZSI6Ii4uLiJ9LCJzb2x1dGlvbiI6eyJjb3VudGVyIjoxMjM0LCJkZXJpdmVkS2V5IjoiLi4uIn19',
  })
  @IsString()
  @MaxLength(ALTCHA_MAX_LENGTH)
  readonly altcha!: string;
}

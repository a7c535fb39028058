import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDateString,
  IsIn,
  IsString,
  Length,
  Matches,
  ValidateIf,
} from 'class-validator';
import { IsOmittable } from '../../common/validation';
import { API_KEY_SCOPES, ApiKeyScope, TEST_VERDICTS, type TestVerdict } from '../../common/principal';
import { WAIT_LEVELS, type WaitLevel } from '../../widget/pow';

/** scheme://host[:port], no path: what a browser sends in the Origin header. */
export const ORIGIN_PATTERN = /^https?:\/\/(\[[0-9a-fA-F:.]+\]|[a-zA-Z0-9.-]+)(:\d{1,5})?$/;

export class CreateApiKeyDto {
  @ApiProperty({ description: 'A name to recognise the key by.', minLength: 1, maxLength: 100, example: 'Checkout widget' })
  @IsString()
  @Length(1, 100)
  readonly name!: string;

  @ApiPropertyOptional({
    description: 'What the key may call. Default: all three.',
    enum: API_KEY_SCOPES,
    isArray: true,
    maxItems: API_KEY_SCOPES.length,
    default: API_KEY_SCOPES,
  })
  @IsOmittable()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(API_KEY_SCOPES, { each: true })
  readonly scopes?: ApiKeyScope[];

  @ApiPropertyOptional({
    description: 'When the key stops working (ISO 8601, in the future). Default: never.',
    format: 'date-time',
    example: '2030-01-01T00:00:00Z',
  })
  @IsOmittable()
  @IsDateString({ strict: true })
  readonly expiresAt?: string;

  @ApiPropertyOptional({
    description: 'Browser origins (scheme://host[:port]) allowed to use the key. Default: any origin.',
    type: [String],
    maxItems: 50,
    items: { type: 'string', maxLength: 200, pattern: ORIGIN_PATTERN.source },
    example: ['https://shop.example.com'],
  })
  @IsOmittable()
  @IsArray()
  @ArrayMaxSize(50)
  @ArrayUnique()
  @IsString({ each: true })
  @Length(1, 200, { each: true })
  @Matches(ORIGIN_PATTERN, { each: true, message: 'each value in allowedOrigins must be an origin such as https://shop.example.com' })
  readonly allowedOrigins?: string[];

  @ApiPropertyOptional({
    description:
      'Difficulty of this key\'s widget challenges as the median wait of a visitor, in ms (docs/API.md, "Challenge difficulty"): 250, 500, 1000 or 2000; null or absent: the plan\'s default.',
    type: 'integer',
    enum: WAIT_LEVELS,
    minimum: WAIT_LEVELS[0],
    maximum: WAIT_LEVELS[WAIT_LEVELS.length - 1],
    nullable: true,
    example: 500,
  })
  @IsOmittable()
  @ValidateIf((_, value) => value !== null)
  @IsIn(WAIT_LEVELS, { message: 'challengeWaitMs must be one of 250, 500, 1000, 2000 (ms) or null' })
  readonly challengeWaitMs?: WaitLevel | null;

  @ApiPropertyOptional({
    description:
      'Makes a test key for your own CI: its verify always answers this verdict without looking at the nonce (`unavailable`: 503 with Retry-After). Only with scopes ["verify"]; refused when Gatehouse runs with NODE_ENV=production (docs/API.md, "Test keys"). Set at creation only.',
    enum: TEST_VERDICTS,
  })
  @IsOmittable()
  @IsIn(TEST_VERDICTS)
  readonly testVerdict?: TestVerdict;
}

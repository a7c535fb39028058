import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsString, Length } from 'class-validator';
import { IsOmittable } from '../../../common/validation';

export class PasskeyDto {
  @ApiProperty({ format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'The name its owner gave it.', example: 'MacBook Touch ID' })
  readonly name!: string;

  @ApiProperty({ description: 'singleDevice, or multiDevice (synced between devices).', enum: ['singleDevice', 'multiDevice'] })
  readonly deviceType!: string;

  @ApiProperty({ description: 'Backed up (synced) by its provider.' })
  readonly backedUp!: boolean;

  @ApiProperty({ type: String, format: 'date-time' })
  readonly createdAt!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Last sign-in with it; null: never.' })
  readonly lastUsedAt!: string | null;
}

export class PasskeyListDto {
  @ApiProperty({ type: [PasskeyDto], description: 'The caller’s passkeys, oldest first.' })
  readonly data!: PasskeyDto[];
}

export class AddPasskeyDto {
  @ApiPropertyOptional({ description: 'A name to tell it by; default "Passkey N".', minLength: 1, maxLength: 100 })
  @IsOmittable()
  @IsString()
  @Length(1, 100)
  readonly name?: string;

  @ApiProperty({
    description: 'What `startRegistration()` of @simplewebauthn/browser (navigator.credentials.create) answered, as JSON.',
    type: 'object',
    additionalProperties: true,
  })
  @IsObject()
  readonly response!: Record<string, unknown>;
}

export class RenamePasskeyDto {
  @ApiProperty({ minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  readonly name!: string;
}

export class PasskeyOptionsRequestDto {
  @ApiPropertyOptional({ description: 'The mfaToken of a login answer, when the passkey is the second factor; omitted: a passwordless sign-in.', maxLength: 200 })
  @IsOmittable()
  @IsString()
  @Length(1, 200)
  readonly mfaToken?: string;
}

export class PasskeyLoginDto extends PasskeyOptionsRequestDto {
  @ApiProperty({
    description: 'What `startAuthentication()` of @simplewebauthn/browser (navigator.credentials.get) answered, as JSON.',
    type: 'object',
    additionalProperties: true,
  })
  @IsObject()
  readonly response!: Record<string, unknown>;
}

/** WebAuthn options JSON, passed as they are to @simplewebauthn/browser. */
export const WEBAUTHN_OPTIONS_SCHEMA = {
  type: 'object' as const,
  additionalProperties: true,
  required: ['challenge'],
  properties: { challenge: { type: 'string' as const, description: 'base64url; accepted once, within 5 minutes' } },
};

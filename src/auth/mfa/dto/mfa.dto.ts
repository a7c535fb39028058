import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';

export const MFA_METHODS = ['totp', 'recovery_code', 'passkey'] as const;
export type MfaMethod = (typeof MFA_METHODS)[number];

export class MfaRequiredDto {
  @ApiProperty({ description: 'Always true: the password was right, a second factor is needed.', enum: [true] })
  readonly mfaRequired!: true;

  @ApiProperty({ description: 'Completes the sign-in with POST /api/v1/auth/login/mfa or /login/passkey: 5 minutes, once.' })
  readonly mfaToken!: string;

  @ApiProperty({ description: 'The second factors this user has.', enum: MFA_METHODS, isArray: true })
  readonly methods!: MfaMethod[];
}

export class MfaLoginDto {
  @ApiProperty({ description: 'The mfaToken from the login answer.', maxLength: 200 })
  @IsString()
  @Length(1, 200)
  readonly mfaToken!: string;

  @ApiProperty({ description: 'A 6-digit code from the authenticator app, or a recovery code (e.g. k7x2m-q9fpa).', maxLength: 32, example: '123456' })
  @IsString()
  @Length(1, 32)
  readonly code!: string;
}

export class TotpCodeDto {
  @ApiProperty({ description: 'The 6-digit code the authenticator app shows now.', pattern: '^[0-9]{6}$', example: '123456' })
  @IsString()
  @Matches(/^[0-9]{6}$/, { message: 'code must be 6 digits' })
  readonly code!: string;
}

export class PasswordConfirmationDto {
  @ApiProperty({ description: 'The account password, to confirm it is you.', minLength: 1, maxLength: 256, format: 'password' })
  @IsString()
  @Length(1, 256)
  readonly password!: string;
}

export class TotpEnrolmentDto {
  @ApiProperty({ description: 'The new TOTP secret (base32), for typing into an app; shown only now.', example: 'JBSWY3DPEHPK3PXP' })
  readonly secret!: string;

  @ApiProperty({ description: 'The same as an otpauth:// URL, for a QR code.', example: 'otpauth://totp/Gatehouse:owner%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Gatehouse' })
  readonly otpauthUrl!: string;
}

export class RecoveryCodesDto {
  @ApiProperty({ description: 'Ten single-use codes, shown only now; each signs in once in place of a TOTP code or passkey.', type: [String], example: ['k7x2m-q9fpa'] })
  readonly recoveryCodes!: string[];
}

export class MfaStatusDto {
  @ApiProperty({ description: 'An authenticator app (TOTP) is on.' })
  readonly totp!: boolean;

  @ApiProperty({ description: 'How many passkeys are registered.', type: 'integer' })
  readonly passkeys!: number;

  @ApiProperty({ description: 'Unused recovery codes left.', type: 'integer' })
  readonly recoveryCodesLeft!: number;

  @ApiProperty({ description: 'The account requires a second factor of every member.' })
  readonly required!: boolean;
}

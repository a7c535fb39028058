import { ApiProperty, PickType } from '@nestjs/swagger';
import { IsEmail, IsString, Length, MaxLength } from 'class-validator';

export class LoginDto {
  @ApiProperty({ description: 'Account e-mail address (case-insensitive).', example: 'owner@example.com', maxLength: 254 })
  @IsString()
  @MaxLength(254)
  @IsEmail()
  readonly email!: string;

  @ApiProperty({
    description: 'Account password.',
    example: 'correct horse battery staple',
    minLength: 1,
    maxLength: 256,
    format: 'password',
  })
  @IsString()
  @Length(1, 256)
  readonly password!: string;
}

export class TokenResponseDto {
  @ApiProperty({ description: 'JWT (HS256) to send as Authorization: Bearer <token>.' })
  readonly token!: string;

  @ApiProperty({ description: 'Lifetime of the token in seconds.', type: 'integer', example: 86400 })
  readonly expiresIn!: number;
}

export class ChangePasswordDto {
  @ApiProperty({ description: 'The current password.', minLength: 1, maxLength: 256, format: 'password' })
  @IsString()
  @Length(1, 256)
  readonly currentPassword!: string;

  @ApiProperty({
    description: 'The new password: 12 to 256 characters, not the email address.',
    minLength: 12,
    maxLength: 256,
    format: 'password',
  })
  @IsString()
  @Length(1, 256)
  readonly newPassword!: string;
}

export class AcceptInvitationDto {
  @ApiProperty({ description: 'The one-time token from the invitation.', maxLength: 200 })
  @IsString()
  @Length(1, 200)
  readonly token!: string;

  @ApiProperty({
    description: 'Password for the new user: 12 to 256 characters, not the email address.',
    minLength: 12,
    maxLength: 256,
    format: 'password',
  })
  @IsString()
  @Length(1, 256)
  readonly password!: string;
}

export class PasswordResetIssuedDto {
  @ApiProperty({
    description:
      'One-time token for POST /api/v1/auth/password-reset/accept, shown this once: pass it on. Null when it was e-mailed (SMTP_URL).',
    type: String,
    nullable: true,
  })
  readonly token!: string | null;

  @ApiProperty({ description: 'Whether the member was e-mailed a link instead.' })
  readonly emailed!: boolean;

  @ApiProperty({ description: 'After this the token no longer works (1 h).', type: String, format: 'date-time' })
  readonly expiresAt!: string;
}

export class PasswordResetRequestDto {
  @ApiProperty({ description: 'The account’s email address.', example: 'dev@example.com', maxLength: 254 })
  @IsString()
  @Length(1, 254)
  readonly email!: string;
}

export class AcceptedDto {
  @ApiProperty({ description: 'Always the same, whatever the email: if it has a user, a link is on its way.', example: 'accepted' })
  readonly status!: 'accepted';
}

export class AcceptPasswordResetDto extends PickType(ChangePasswordDto, ['newPassword'] as const) {
  @ApiProperty({ description: 'The one-time reset token.', maxLength: 200 })
  @IsString()
  @Length(1, 200)
  readonly token!: string;
}

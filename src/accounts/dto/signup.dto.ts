import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, Length, MaxLength } from 'class-validator';
import { ALTCHA_MAX_LENGTH } from '../../widget/dto/challenge.dto';

export class SignupDto {
  @ApiProperty({ description: 'The OWNER’s email address.', example: 'founder@example.com', maxLength: 254 })
  @IsString()
  @MaxLength(254)
  @IsEmail()
  readonly email!: string;

  @ApiProperty({ description: '12 to 256 characters, not the email address.', minLength: 12, maxLength: 256, format: 'password' })
  @IsString()
  @Length(1, 256)
  readonly password!: string;

  @ApiProperty({ description: 'The new account’s name.', example: 'Acme Inc.', minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  readonly accountName!: string;

  @ApiProperty({
    description: 'A solved GET /api/v1/auth/signup/challenge, as the altcha widget submits it (base64 JSON).',
    maxLength: ALTCHA_MAX_LENGTH,
  })
  @IsString()
  @Length(1, ALTCHA_MAX_LENGTH)
  readonly altcha!: string;
}

export class ConfirmSignupDto {
  @ApiProperty({ description: 'The token of the confirmation link (after #token=).', maxLength: 200 })
  @IsString()
  @Length(1, 200)
  readonly token!: string;
}

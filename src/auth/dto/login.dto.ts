import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, Length, MaxLength } from 'class-validator';

export class LoginDto {
  @ApiProperty({ description: 'Account e-mail address (case-insensitive).', example: 'owner@example.com', maxLength: 254 })
  @IsString() @MaxLength(254) @IsEmail()
  readonly email!: string;

  @ApiProperty({ description: 'Account password.', example: 'correct horse battery staple', minLength: 1, maxLength: 256, format: 'password' })
  @IsString() @Length(1, 256)
  readonly password!: string;
}

export class TokenResponseDto {
  @ApiProperty({ description: 'JWT (HS256) to send as Authorization: Bearer <token>.' })
  readonly token!: string;

  @ApiProperty({ description: 'Lifetime of the token in seconds.', example: 86400 })
  readonly expiresIn!: number;
}

import { ApiProperty } from '@nestjs/swagger';

/** What a browser may know about this deployment before signing in. */
export class ServiceConfigDto {
  @ApiProperty({ description: 'Whether anyone may create an account (POST /api/v1/auth/signup).' })
  readonly signupOpen!: boolean;

  @ApiProperty({
    description: 'Whether this deployment sends e-mail (SMTP_URL): password resets by e-mail, e-mailed invitations.',
  })
  readonly emailEnabled!: boolean;

  @ApiProperty({ description: 'The Gatehouse version answering.', example: '0.1.0', maxLength: 64 })
  readonly version!: string;
}

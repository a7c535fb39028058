import { ApiProperty } from '@nestjs/swagger';
import { SESSION_METHODS, SessionMethod } from '../session.service';

export class SessionDto {
  @ApiProperty({ description: "Session id: the `jti` of the session's tokens.", format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'The device, from the User-Agent it signed in with.', example: 'Chrome on macOS' })
  readonly device!: string;

  @ApiProperty({ description: 'Client IP it signed in from (as TRUST_PROXY resolves it).', example: '203.0.113.7' })
  readonly ip!: string;

  @ApiProperty({ description: 'How it signed in.', enum: SESSION_METHODS })
  readonly method!: SessionMethod;

  @ApiProperty({ description: 'When it signed in.', type: String, format: 'date-time' })
  readonly createdAt!: string;

  @ApiProperty({ description: 'When its token was last used, to about a minute.', type: String, format: 'date-time' })
  readonly lastSeenAt!: string;

  @ApiProperty({ description: 'When its token expires.', type: String, format: 'date-time' })
  readonly expiresAt!: string;

  @ApiProperty({ description: 'Whether this is the session of the token making the request.' })
  readonly current!: boolean;
}

export class SessionListDto {
  @ApiProperty({ description: "The caller's live sessions (not ended, not expired), newest first; at most 100.", type: [SessionDto] })
  readonly data!: SessionDto[];
}

export class SessionTokenDto {
  @ApiProperty({ description: "JWT (HS256) to send as Authorization: Bearer <token>; its `jti` is the session's id." })
  readonly token!: string;

  @ApiProperty({ description: 'Lifetime of the token in seconds: at most 300, and never past the session.', type: 'integer', example: 300 })
  readonly expiresIn!: number;

  @ApiProperty({ description: 'Seconds until the session itself ends (a new sign-in is needed then).', type: 'integer', example: 86100 })
  readonly sessionExpiresIn!: number;
}

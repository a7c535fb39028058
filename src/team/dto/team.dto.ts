import { ApiProperty, PickType } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString, Length, MaxLength } from 'class-validator';
import { ROLES, Role } from '../../common/principal';

export class MemberDto {
  @ApiProperty({ description: 'User id.', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'Email address (lower-cased).' })
  readonly email!: string;

  @ApiProperty({ description: 'Role in the account.', enum: ROLES })
  readonly role!: Role;

  @ApiProperty({ description: 'The member has a second factor (an authenticator app or a passkey).' })
  readonly mfa!: boolean;

  @ApiProperty({ description: 'When the user joined.', type: String, format: 'date-time' })
  readonly createdAt!: string;
}

export class MemberListDto {
  @ApiProperty({ description: 'Members of the account, oldest first.', type: [MemberDto] })
  readonly data!: MemberDto[];
}

export class CreateInvitationDto {
  @ApiProperty({ description: 'Who to invite.', example: 'dev@example.com', maxLength: 254 })
  @IsString()
  @MaxLength(254)
  @IsEmail()
  readonly email!: string;

  @ApiProperty({ description: 'Role the invitee gets. Only an OWNER may invite an OWNER.', enum: ROLES })
  @IsIn(ROLES)
  readonly role!: Role;
}

export class InvitationDto {
  @ApiProperty({ description: 'Invitation id.', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'The invitee.' })
  readonly email!: string;

  @ApiProperty({ description: 'Role the invitee gets.', enum: ROLES })
  readonly role!: Role;

  @ApiProperty({ description: 'After this the token no longer works (7 days).', type: String, format: 'date-time' })
  readonly expiresAt!: string;

  @ApiProperty({
    description:
      'One-time token for POST /api/v1/auth/invitations/accept. Shown this once: send it to the invitee. Null when it was e-mailed (SMTP_URL). A new invitation of the same email replaces a pending one.',
    type: String,
    nullable: true,
  })
  readonly token!: string | null;

  @ApiProperty({ description: 'Whether the invitee was e-mailed a link instead.' })
  readonly emailed!: boolean;
}

export class ChangeRoleDto {
  @ApiProperty({ description: 'The new role.', enum: ROLES })
  @IsIn(ROLES)
  readonly role!: Role;
}

export class InviterDto {
  @ApiProperty({ description: 'User id.', format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'Email address.' })
  readonly email!: string;
}

/** A pending invitation as the team page lists it: never its token. */
export class PendingInvitationDto extends PickType(InvitationDto, ['id', 'email', 'role', 'expiresAt'] as const) {
  @ApiProperty({ description: 'When it was sent.', type: String, format: 'date-time' })
  readonly createdAt!: string;

  @ApiProperty({ description: 'The member who invited.', type: InviterDto, nullable: true })
  readonly invitedBy!: InviterDto | null;
}

export class InvitationTokenDto {
  @ApiProperty({ description: 'The one-time token from the invitation.', maxLength: 200 })
  @IsString()
  @Length(1, 200)
  readonly token!: string;
}

/** What an invitee sees before choosing a password: whom they join, as whom, invited by whom. */
export class InvitationPreviewDto extends PickType(InvitationDto, ['email', 'role', 'expiresAt'] as const) {
  @ApiProperty({ description: 'The account the invitation joins.' })
  readonly accountName!: string;

  @ApiProperty({ description: 'The email of the member who invited.' })
  readonly invitedBy!: string;
}

export class PendingInvitationListDto {
  @ApiProperty({
    description: 'Invitations neither accepted, revoked nor expired, newest first.',
    type: [PendingInvitationDto],
  })
  readonly data!: PendingInvitationDto[];
}

import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { normalizeEmail } from '../common/email';
import { CHALLENGE } from '../common/errors/challenges';
import type { Actor, RequestSource } from '../common/current-principal.decorator';
import { PasswordResetIssuedDto, TokenResponseDto } from '../credentials/dto/login.dto';
import { PasswordResetService } from '../credentials/password-reset.service';
import { hashPassword, passwordProblems } from '../credentials/passwords';
import type { Role } from '../common/principal';
import { SessionService } from '../credentials/session.service';
import { hasSecondFactor, SECOND_FACTOR_SELECT } from '../credentials/second-factor';
import { CacheInvalidation } from '../cache/invalidation.service';
import { AppError } from '../common/errors/app-error';
import { hashOneTimeToken, newOneTimeToken } from '../common/one-time-token';
import type { Prisma, User } from '../generated/prisma/client';
import { Mailer } from '../mail/mailer';
import { PrismaService } from '../prisma/prisma.service';
import { WebhookEmitter } from '../webhooks/webhook-emitter';
import { InvitationDto, InvitationPreviewDto, MemberDto, PendingInvitationDto } from './dto/team.dto';
import { assertNotLastOwner, invitationRolesKept, isPending, mayActOnOwner, mayInvite, takesAnOwnerAway } from './team-rules';

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

const toMemberDto = (u: User & { _count: { passkeys: number } }): MemberDto => ({
  id: u.id,
  email: u.email,
  role: u.role,
  mfa: hasSecondFactor(u),
  createdAt: u.createdAt.toISOString(),
});

/** An invitation still usable at `now`: not accepted, not revoked, not expired. */
const pendingAt = (now: Date) => ({ acceptedAt: null, revokedAt: null, expiresAt: { gt: now } });

/** The member's pending invitations that their new role (null: removed) no longer covers die with it. */
async function revokeInvitationsOf(tx: Prisma.TransactionClient, userId: string, newRole: Role | null): Promise<void> {
  await tx.invitation.updateMany({
    where: { invitedById: userId, role: { notIn: invitationRolesKept(newRole) }, ...pendingAt(new Date()) },
    data: { revokedAt: new Date() },
  });
}

/** An invitation that cannot be used (unknown, used, revoked, expired, or its inviter gone): as a refused credential. */
const invitationRefused = () =>
  new AppError('invalid_credentials', 'The invitation is unknown, used or expired.').withChallenge(CHALLENGE.bearer);

/**
 * Members and invitations. The rules: only an OWNER grants, changes or removes OWNER; the last
 * OWNER is never demoted or removed; ids of another account answer 404.
 */
@Injectable()
export class TeamService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly sessions: SessionService,
    private readonly invalidation: CacheInvalidation,
    private readonly audit: AuditService,
    private readonly mailer: Mailer,
    private readonly resets: PasswordResetService,
    private readonly webhooks: WebhookEmitter,
  ) {}

  async members(accountId: string): Promise<MemberDto[]> {
    const users = await this.prisma.user.findMany({
      where: { accountId },
      orderBy: { createdAt: 'asc' },
      include: { _count: SECOND_FACTOR_SELECT._count },
    });
    return users.map(toMemberDto);
  }

  /**
   * A new invitation; one still pending for the same email in this account is replaced (revoked).
   * Whether the email already has a user is not said here — that would tell an ADMIN who is a
   * customer — but at accept (409).
   */
  async invite(actor: Actor, rawEmail: string, role: Role): Promise<InvitationDto> {
    if (!mayActOnOwner(actor.role, role)) throw new AppError('insufficient_permissions', 'Only an OWNER may invite an OWNER.');
    const email = normalizeEmail(rawEmail);
    const token = newOneTimeToken('ghi');
    const now = new Date();
    const invitation = await this.prisma.$transaction(async (tx) => {
      const old = await tx.invitation.updateMany({
        where: { accountId: actor.accountId, email, ...pendingAt(now) },
        data: { revokedAt: now },
      });
      const created = await tx.invitation.create({
        data: {
          accountId: actor.accountId,
          email,
          role,
          tokenHash: hashOneTimeToken(token),
          invitedById: actor.userId,
          expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        },
      });
      await this.audit.recordBy(
        tx,
        actor,
        'team.invitation_created',
        { type: 'invitation', id: created.id },
        { email, role, replaced: old.count },
      );
      return created;
    });
    const answer = { id: invitation.id, email, role, expiresAt: invitation.expiresAt.toISOString() };
    if (!this.mailer.enabled) return { ...answer, token, emailed: false };
    this.mailer.sendLater(
      {
        to: email,
        subject: 'You are invited to Gatehouse',
        text: `${actor.email} invites you to their Gatehouse account as ${role}.

Join here (the link works once, for 7 days):
${this.mailer.link('/accept-invitation', token)}
`,
      },
      'an invitation',
    );
    return { ...answer, token: null, emailed: true };
  }

  /** Pending invitations of the account, newest first: never their token. */
  async pending(accountId: string): Promise<PendingInvitationDto[]> {
    const rows = await this.prisma.invitation.findMany({ where: { accountId, ...pendingAt(new Date()) }, orderBy: { createdAt: 'desc' } });
    const inviterIds = [...new Set(rows.flatMap((r) => (r.invitedById === null ? [] : [r.invitedById])))];
    const inviters = new Map(
      (await this.prisma.user.findMany({ where: { id: { in: inviterIds }, accountId }, select: { id: true, email: true } })).map((u) => [
        u.id,
        u,
      ]),
    );
    return rows.map((r) => ({
      id: r.id,
      email: r.email,
      role: r.role,
      expiresAt: r.expiresAt.toISOString(),
      createdAt: r.createdAt.toISOString(),
      invitedBy: (r.invitedById !== null && inviters.get(r.invitedById)) || null,
    }));
  }

  /** Revokes a pending invitation (only an OWNER one of an OWNER); another account's, or one no longer pending, is 404. */
  async revoke(actor: Actor, id: string): Promise<void> {
    const now = new Date();
    const invitation = await this.prisma.invitation.findFirst({ where: { id, accountId: actor.accountId, ...pendingAt(now) } });
    if (invitation === null) throw new AppError('not_found', 'No such pending invitation.');
    if (!mayActOnOwner(actor.role, invitation.role)) {
      throw new AppError('insufficient_permissions', 'Only an OWNER may revoke an invitation to become OWNER.');
    }
    await this.prisma.$transaction(async (tx) => {
      const revoked = await tx.invitation.updateMany({ where: { id, ...pendingAt(now) }, data: { revokedAt: now } });
      if (revoked.count === 0) throw new AppError('not_found', 'No such pending invitation.'); // accepted meanwhile
      await this.audit.recordBy(
        tx,
        actor,
        'team.invitation_revoked',
        { type: 'invitation', id },
        { email: invitation.email, role: invitation.role },
      );
    });
  }

  /**
   * Whom a pending invitation joins, as whom, invited by whom — for its link's page, before a
   * password is chosen. Refused exactly as accepting it would be.
   */
  async previewInvitation(token: string): Promise<InvitationPreviewDto> {
    const invitation = await this.prisma.invitation.findUnique({
      where: { tokenHash: hashOneTimeToken(token) },
      include: { account: true },
    });
    const inviter =
      invitation?.invitedById == null
        ? null
        : await this.prisma.user.findFirst({ where: { id: invitation.invitedById, accountId: invitation.accountId } });
    if (invitation === null || !isPending(invitation, new Date()) || inviter === null || !mayInvite(inviter.role, invitation.role)) {
      throw invitationRefused();
    }
    return {
      accountName: invitation.account.name,
      invitedBy: inviter.email,
      email: invitation.email,
      role: invitation.role,
      expiresAt: invitation.expiresAt.toISOString(),
    };
  }

  /** Single use: the invitation is claimed in the same transaction that creates the user. */
  async acceptInvitation(token: string, password: string, source: RequestSource): Promise<TokenResponseDto> {
    const invitation = await this.prisma.invitation.findUnique({ where: { tokenHash: hashOneTimeToken(token) } });
    if (invitation === null || !isPending(invitation, new Date())) {
      throw invitationRefused();
    }
    const problems = passwordProblems(password, invitation.email, 'password');
    if (problems.length > 0) throw new AppError('validation_failed', 'The password does not meet the policy.', problems);
    const passwordHash = await hashPassword(password);
    return this.prisma.$transaction(async (tx) => {
      const claimed = await tx.invitation.updateMany({
        where: { id: invitation.id, ...pendingAt(new Date()) },
        data: { acceptedAt: new Date() },
      });
      if (claimed.count === 0) throw invitationRefused();
      // Removing or demoting the inviter revokes their invitations; this holds whatever path changed them.
      const inviter =
        invitation.invitedById === null
          ? null
          : await tx.user.findFirst({ where: { id: invitation.invitedById, accountId: invitation.accountId } });
      if (inviter === null || !mayInvite(inviter.role, invitation.role)) throw invitationRefused();
      if ((await tx.user.count({ where: { email: invitation.email } })) > 0)
        throw new AppError('conflict', 'A user with this email exists.');
      const created = await tx.user.create({
        data: { email: invitation.email, role: invitation.role, accountId: invitation.accountId, passwordHash },
      });
      await this.audit.record(tx, {
        accountId: created.accountId,
        action: 'team.invitation_accepted',
        actorId: created.id,
        actorEmail: created.email,
        ...source,
        target: { type: 'invitation', id: invitation.id },
        details: { role: created.role },
      });
      await this.webhooks.emit(tx, created.accountId, 'member.joined', {
        member: { id: created.id, email: created.email, role: created.role },
      });
      return this.sessions.start(tx, created, 'invitation', source);
    });
  }

  /** A password reset for a member of the actor's account; an ADMIN not for an OWNER. */
  async issuePasswordReset(actor: Actor, userId: string): Promise<PasswordResetIssuedDto> {
    const member = await this.prisma.user.findFirst({ where: { id: userId, accountId: actor.accountId } });
    if (member === null) throw new AppError('not_found', 'No such member.');
    if (!mayActOnOwner(actor.role, member.role)) {
      throw new AppError('insufficient_permissions', 'Only an OWNER may reset an OWNER’s password.');
    }
    return this.resets.issueFor(actor, member);
  }

  /** Ends every session of a member of the actor's account (their tokens stop working); an ADMIN not an OWNER's. */
  async endSessions(actor: Actor, userId: string): Promise<void> {
    const member = await this.prisma.user.findFirst({ where: { id: userId, accountId: actor.accountId } });
    if (member === null) throw new AppError('not_found', 'No such member.');
    if (!mayActOnOwner(actor.role, member.role)) {
      throw new AppError('insufficient_permissions', 'Only an OWNER may end an OWNER’s sessions.');
    }
    await this.sessions.endAllByAdmin(actor, member.id);
  }

  async changeRole(actor: Actor, userId: string, role: Role): Promise<MemberDto> {
    const updated = await this.withOwnersLocked(actor, userId, async (tx, member) => {
      if (!mayActOnOwner(actor.role, member.role, role)) {
        throw new AppError('insufficient_permissions', 'Only an OWNER may grant or change the OWNER role.');
      }
      if (takesAnOwnerAway(member.role, role)) await this.assertNotLastOwner(tx, actor.accountId);
      await revokeInvitationsOf(tx, member.id, role);
      await this.audit.recordBy(tx, actor, 'team.role_changed', { type: 'user', id: userId }, { to: role });
      return tx.user.update({ where: { id: member.id }, data: { role }, include: { _count: SECOND_FACTOR_SELECT._count } });
    });
    this.invalidation.invalidate('user', userId);
    return toMemberDto(updated);
  }

  /** The member's tokens stop working at once: their user row is gone. */
  async remove(actor: Actor, userId: string): Promise<void> {
    await this.withOwnersLocked(actor, userId, async (tx, member) => {
      if (!mayActOnOwner(actor.role, member.role)) throw new AppError('insufficient_permissions', 'Only an OWNER may remove an OWNER.');
      if (takesAnOwnerAway(member.role, null)) await this.assertNotLastOwner(tx, actor.accountId);
      await revokeInvitationsOf(tx, member.id, null);
      await this.audit.recordBy(tx, actor, 'team.member_removed', { type: 'user', id: userId }, { email: member.email, role: member.role });
      await this.webhooks.emit(tx, actor.accountId, 'member.removed', {
        member: { id: member.id, email: member.email, role: member.role },
        actor: { id: actor.userId, email: actor.email },
      });
      return tx.user.delete({ where: { id: member.id } });
    });
    this.invalidation.invalidate('user', userId);
  }

  /** Runs `change` with the account row locked, so two owners cannot demote each other at once. */
  private withOwnersLocked<T>(
    actor: Actor,
    userId: string,
    change: (tx: Prisma.TransactionClient, member: User) => Promise<T>,
  ): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM "Account" WHERE id = ${actor.accountId}::uuid FOR UPDATE`;
      const member = await tx.user.findFirst({ where: { id: userId, accountId: actor.accountId } });
      if (member === null) throw new AppError('not_found', 'No such member.');
      return change(tx, member);
    });
  }

  private async assertNotLastOwner(tx: Prisma.TransactionClient, accountId: string): Promise<void> {
    assertNotLastOwner(await tx.user.count({ where: { accountId, role: 'OWNER' } }));
  }
}

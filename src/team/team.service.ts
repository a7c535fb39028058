import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { normalizeEmail } from '../auth/auth.service';
import { CHALLENGE } from '../auth/challenges';
import type { Actor } from '../auth/current-principal.decorator';
import { TokenResponseDto } from '../auth/dto/login.dto';
import { hashPassword, passwordProblems } from '../auth/passwords';
import type { Role } from '../auth/principal';
import { TokenService } from '../auth/token.service';
import { CacheInvalidation } from '../cache/invalidation.service';
import { AppError } from '../common/errors/app-error';
import type { Prisma, User } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';
import { InvitationDto, MemberDto } from './dto/team.dto';

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

const toMemberDto = (u: User): MemberDto => ({ id: u.id, email: u.email, role: u.role as Role, createdAt: u.createdAt.toISOString() });
const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Members and invitations. The rules: only an OWNER grants, changes or removes OWNER; the last
 * OWNER is never demoted or removed; ids of another account answer 404.
 */
@Injectable()
export class TeamService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly tokens: TokenService,
    private readonly invalidation: CacheInvalidation,
    private readonly audit: AuditService,
  ) {}

  async members(accountId: string): Promise<MemberDto[]> {
    const users = await this.prisma.user.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' } });
    return users.map(toMemberDto);
  }

  async invite(actor: Actor, rawEmail: string, role: Role): Promise<InvitationDto> {
    if (role === 'OWNER' && actor.role !== 'OWNER') throw new AppError('insufficient_permissions', 'Only an OWNER may invite an OWNER.');
    const email = normalizeEmail(rawEmail);
    if ((await this.prisma.user.count({ where: { email } })) > 0) throw new AppError('conflict', 'A user with this email exists.');
    const token = `ghi_${randomBytes(32).toString('base64url')}`;
    const invitation = await this.prisma.invitation.create({
      data: {
        accountId: actor.accountId,
        email,
        role,
        tokenHash: hashToken(token),
        invitedById: actor.userId,
        expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
      },
    });
    await this.audit.recordBy(actor, 'team.invitation_created', { type: 'invitation', id: invitation.id }, { email, role });
    return { id: invitation.id, email, role, expiresAt: invitation.expiresAt.toISOString(), token };
  }

  /** Single use: the invitation is claimed in the same transaction that creates the user. */
  async acceptInvitation(token: string, password: string, requestId: string): Promise<TokenResponseDto> {
    const refused = () =>
      new AppError('invalid_credentials', 'The invitation is unknown, used or expired.').withChallenge(CHALLENGE.bearer);
    const invitation = await this.prisma.invitation.findUnique({ where: { tokenHash: hashToken(token) } });
    if (invitation === null || invitation.acceptedAt !== null || invitation.expiresAt <= new Date()) throw refused();
    const problems = passwordProblems(password, invitation.email, 'password');
    if (problems.length > 0) throw new AppError('validation_failed', 'The password does not meet the policy.', problems);
    const passwordHash = await hashPassword(password);
    const user = await this.prisma.$transaction(async (tx) => {
      const claimed = await tx.invitation.updateMany({ where: { id: invitation.id, acceptedAt: null }, data: { acceptedAt: new Date() } });
      if (claimed.count === 0) throw refused();
      if ((await tx.user.count({ where: { email: invitation.email } })) > 0)
        throw new AppError('conflict', 'A user with this email exists.');
      return tx.user.create({ data: { email: invitation.email, role: invitation.role, accountId: invitation.accountId, passwordHash } });
    });
    await this.audit.record({
      accountId: user.accountId,
      action: 'team.invitation_accepted',
      actorId: user.id,
      actorEmail: user.email,
      requestId,
      target: { type: 'invitation', id: invitation.id },
      details: { role: user.role },
    });
    return this.tokens.issue(user);
  }

  async changeRole(actor: Actor, userId: string, role: Role): Promise<MemberDto> {
    const updated = await this.withOwnersLocked(actor, userId, async (tx, member) => {
      if ((member.role === 'OWNER' || role === 'OWNER') && actor.role !== 'OWNER') {
        throw new AppError('insufficient_permissions', 'Only an OWNER may grant or change the OWNER role.');
      }
      if (member.role === 'OWNER' && role !== 'OWNER') await this.assertNotLastOwner(tx, actor.accountId);
      return tx.user.update({ where: { id: member.id }, data: { role } });
    });
    this.invalidation.invalidate('user', userId);
    await this.audit.recordBy(actor, 'team.role_changed', { type: 'user', id: userId }, { to: role });
    return toMemberDto(updated);
  }

  /** The member's tokens stop working at once: their user row is gone. */
  async remove(actor: Actor, userId: string): Promise<void> {
    const removed = await this.withOwnersLocked(actor, userId, async (tx, member) => {
      if (member.role === 'OWNER') {
        if (actor.role !== 'OWNER') throw new AppError('insufficient_permissions', 'Only an OWNER may remove an OWNER.');
        await this.assertNotLastOwner(tx, actor.accountId);
      }
      return tx.user.delete({ where: { id: member.id } });
    });
    this.invalidation.invalidate('user', userId);
    await this.audit.recordBy(actor, 'team.member_removed', { type: 'user', id: userId }, { email: removed.email, role: removed.role });
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
    if ((await tx.user.count({ where: { accountId, role: 'OWNER' } })) <= 1) {
      throw new AppError('conflict', 'The last OWNER cannot be demoted or removed; make another member OWNER first.');
    }
  }
}

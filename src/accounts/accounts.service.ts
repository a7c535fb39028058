import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { CacheInvalidation } from '../cache/invalidation.service';
import type { Actor, RequestSource } from '../common/current-principal.decorator';
import type { Account, Plan, Prisma } from '../generated/prisma/client';
import { toPlanDto } from '../plans/dto/plan.dto';
import { isUniqueViolation } from '../prisma/database-errors';
import { PrismaService } from '../prisma/prisma.service';
import { AppError } from '../common/errors/app-error';
import { AccountDto, UpdateAccountDto } from './dto/account.dto';
import { normalizeEmail } from '../common/email';
import { hashPassword, passwordProblems } from '../credentials/passwords';
import { hasSecondFactor, SECOND_FACTOR_SELECT } from '../credentials/second-factor';
import { isEmail, maxLength } from 'class-validator';

export const toAccountDto = (a: Account & { plan: Plan }): AccountDto => ({
  id: a.id,
  name: a.name,
  plan: toPlanDto(a.plan),
  nonceTtlSeconds: a.nonceTtlSeconds,
  requireMfa: a.requireMfa,
  createdAt: a.createdAt.toISOString(),
});

@Injectable()
export class AccountsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly invalidation: CacheInvalidation,
    private readonly audit: AuditService,
  ) {}

  /**
   * A new account with its first OWNER (the bootstrap owner, `npm run account:create`). The password
   * must meet the policy; an email that already has a user is a conflict, and nothing is created.
   * With `audited` (sign-up), its `account.created` event commits with the account.
   */
  async createWithOwner(
    input: {
      name: string;
      email: string;
      password: string;
      plan?: string;
      /** False: the OWNER cannot sign in before confirming the address (sign-up with e-mail on). */
      emailConfirmed?: boolean;
    },
    audited?: RequestSource & { details: Prisma.InputJsonObject },
  ): Promise<{ accountId: string; ownerId: string }> {
    const email = normalizeEmail(input.email);
    const problems = [
      // LoginDto's checks: an owner whose email login refuses could never sign in.
      ...(isEmail(email) && maxLength(email, 254) ? [] : [{ field: 'email', message: 'email must be an email address' }]),
      ...(input.name.trim().length >= 1 && input.name.length <= 100
        ? []
        : [{ field: 'name', message: 'name must be 1 to 100 characters' }]),
      ...passwordProblems(input.password, email, 'password'),
    ];
    if (problems.length > 0) throw new AppError('validation_failed', 'The account cannot be created as given.', problems);
    const passwordHash = await hashPassword(input.password);
    try {
      return await this.prisma.$transaction(async (tx) => {
        const account = await tx.account.create({
          data: {
            name: input.name.trim(),
            planId: input.plan ?? 'free',
            users: {
              create: { email, role: 'OWNER', passwordHash, ...(input.emailConfirmed === false ? { emailConfirmedAt: null } : {}) },
            },
          },
          select: { id: true, users: { select: { id: true } } },
        });
        const created = { accountId: account.id, ownerId: account.users[0].id };
        if (audited !== undefined) {
          await this.audit.record(tx, {
            accountId: created.accountId,
            action: 'account.created',
            actorId: created.ownerId,
            actorEmail: email,
            requestId: audited.requestId,
            ip: audited.ip,
            target: { type: 'account', id: created.accountId },
            details: audited.details,
          });
        }
        return created;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('conflict', 'A user with this email exists.');
      if ((err as { code?: string }).code === 'P2003')
        throw new AppError('validation_failed', 'No such plan.', [{ field: 'plan', message: 'plan must be an existing plan' }]);
      throw err;
    }
  }

  async get(accountId: string): Promise<AccountDto> {
    return toAccountDto(await this.prisma.account.findUniqueOrThrow({ where: { id: accountId }, include: { plan: true } }));
  }

  async update(actor: Actor, dto: UpdateAccountDto): Promise<AccountDto> {
    if (dto.name === undefined && dto.nonceTtlSeconds === undefined && dto.requireMfa === undefined) {
      throw new AppError('validation_failed', 'Nothing to change.', [
        { field: 'body', message: 'send name, nonceTtlSeconds and/or requireMfa' },
      ]);
    }
    if (dto.requireMfa !== undefined && actor.role !== 'OWNER') {
      throw new AppError('insufficient_permissions', 'Only an OWNER may require a second factor of every member.');
    }
    if (dto.requireMfa === true) {
      const me = await this.prisma.user.findUniqueOrThrow({ where: { id: actor.userId }, select: SECOND_FACTOR_SELECT });
      if (!hasSecondFactor(me))
        throw new AppError(
          'conflict',
          'Turn on a second factor for yourself first: requiring one would lock you out of everything but enrolling.',
        );
    }
    const { account, userIds } = await this.prisma.$transaction(async (tx) => {
      const before = await tx.account.findUniqueOrThrow({ where: { id: actor.accountId } });
      const after = await tx.account.update({
        where: { id: actor.accountId },
        data: { name: dto.name, nonceTtlSeconds: dto.nonceTtlSeconds, requireMfa: dto.requireMfa },
        include: { plan: true },
      });
      const changes = Object.fromEntries(
        (['name', 'nonceTtlSeconds'] as const).filter((f) => dto[f] !== undefined).map((f) => [f, { from: before[f], to: after[f] }]),
      );
      if (Object.keys(changes).length > 0)
        await this.audit.recordBy(tx, actor, 'account.updated', { type: 'account', id: after.id }, changes);
      if (dto.requireMfa === undefined || before.requireMfa === after.requireMfa) return { account: after, userIds: [] };
      await this.audit.recordBy(
        tx,
        actor,
        'account.mfa_requirement_changed',
        { type: 'account', id: after.id },
        {
          requireMfa: { from: before.requireMfa, to: after.requireMfa },
        },
      );
      // Each member's cached principal says whether they must enrol first.
      const users = await tx.user.findMany({ where: { accountId: after.id }, select: { id: true } });
      return { account: after, userIds: users.map((u) => u.id) };
    });
    this.invalidation.invalidate('account', account.id);
    if (userIds.length > 0) this.invalidation.invalidate('user', ...userIds);
    return toAccountDto(account);
  }

  /**
   * Deletes the account and everything in it (users, keys, invitations, nonces, audit events,
   * usage, webhooks) once `confirm` is its name; a record of the deletion stays outside it
   * (DeletedAccount). Every instance drops the account's keys, users and limits from its caches at
   * once (the invalidation topics), so no key or token of it works on the next request.
   */
  async delete(actor: Actor, confirm: string): Promise<void> {
    const gone = await this.prisma.$transaction(async (tx) => {
      const [account] = await tx.$queryRaw<
        Array<{ name: string }>
      >`SELECT name FROM "Account" WHERE id = ${actor.accountId}::uuid FOR UPDATE`;
      if (account === undefined) throw new AppError('not_found', 'No such account.');
      if (confirm !== account.name) {
        throw new AppError('validation_failed', 'The confirmation is not the account’s name.', [
          { field: 'confirm', message: 'confirm must be the account’s name, exactly' },
        ]);
      }
      const keys = await tx.apiKey.findMany({ where: { accountId: actor.accountId }, select: { hash: true, previousHash: true } });
      const users = await tx.user.findMany({ where: { accountId: actor.accountId }, select: { id: true } });
      const usage = await tx.usageCounter.deleteMany({ where: { accountId: actor.accountId } });
      const webhooks = await tx.webhookEndpoint.deleteMany({ where: { accountId: actor.accountId } });
      const invitations = await tx.invitation.count({ where: { accountId: actor.accountId } });
      await tx.account.delete({ where: { id: actor.accountId } });
      await tx.deletedAccount.create({
        data: {
          id: actor.accountId,
          name: account.name,
          deletedById: actor.userId,
          deletedByEmail: actor.email,
          requestId: actor.requestId,
          purged: { users: users.length, apiKeys: keys.length, invitations, usageRows: usage.count, webhooks: webhooks.count },
        },
      });
      return { keys, users };
    });
    this.invalidation.invalidate(
      'apiKeyHash',
      ...gone.keys.flatMap((k) => (k.previousHash === null ? [k.hash] : [k.hash, k.previousHash])),
    );
    this.invalidation.invalidate('user', ...gone.users.map((u) => u.id));
    this.invalidation.invalidate('account', actor.accountId);
  }

  /** The new limits apply from the next request: the plan cache is dropped here. */
  async changePlan(actor: Actor, planId: string): Promise<AccountDto> {
    const account = await this.prisma.$transaction(async (tx) => {
      const before = await tx.account.findUniqueOrThrow({ where: { id: actor.accountId } });
      const after = await tx.account.update({ where: { id: actor.accountId }, data: { planId }, include: { plan: true } });
      await this.audit.recordBy(tx, actor, 'account.plan_changed', { type: 'account', id: after.id }, { from: before.planId, to: planId });
      return after;
    });
    this.invalidation.invalidate('account', account.id);
    return toAccountDto(account);
  }
}

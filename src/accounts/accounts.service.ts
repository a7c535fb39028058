import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { CacheInvalidation } from '../cache/invalidation.service';
import type { Actor } from '../auth/current-principal.decorator';
import type { Account, Plan } from '../generated/prisma/client';
import { toPlanDto } from '../plans/dto/plan.dto';
import { PrismaService } from '../prisma/prisma.service';
import { AppError } from '../common/errors/app-error';
import { AccountDto, UpdateAccountDto } from './dto/account.dto';

export const toAccountDto = (a: Account & { plan: Plan }): AccountDto => ({
  id: a.id,
  name: a.name,
  plan: toPlanDto(a.plan),
  nonceTtlSeconds: a.nonceTtlSeconds,
  createdAt: a.createdAt.toISOString(),
});

@Injectable()
export class AccountsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly invalidation: CacheInvalidation,
    private readonly audit: AuditService,
  ) {}

  async get(accountId: string): Promise<AccountDto> {
    return toAccountDto(await this.prisma.account.findUniqueOrThrow({ where: { id: accountId }, include: { plan: true } }));
  }

  async update(actor: Actor, dto: UpdateAccountDto): Promise<AccountDto> {
    if (dto.name === undefined && dto.nonceTtlSeconds === undefined) {
      throw new AppError('validation_failed', 'Nothing to change.', [{ field: 'body', message: 'send name and/or nonceTtlSeconds' }]);
    }
    const before = await this.prisma.account.findUniqueOrThrow({ where: { id: actor.accountId } });
    const account = await this.prisma.account.update({
      where: { id: actor.accountId },
      data: { name: dto.name, nonceTtlSeconds: dto.nonceTtlSeconds },
      include: { plan: true },
    });
    this.invalidation.invalidate('account', account.id);
    const changes = Object.fromEntries(
      (['name', 'nonceTtlSeconds'] as const).filter((f) => dto[f] !== undefined).map((f) => [f, { from: before[f], to: account[f] }]),
    );
    await this.audit.recordBy(actor, 'account.updated', { type: 'account', id: account.id }, changes);
    return toAccountDto(account);
  }

  /** The new limits apply from the next request: the plan cache is dropped here. */
  async changePlan(actor: Actor, planId: string): Promise<AccountDto> {
    const before = await this.prisma.account.findUniqueOrThrow({ where: { id: actor.accountId } });
    const account = await this.prisma.account.update({ where: { id: actor.accountId }, data: { planId }, include: { plan: true } });
    this.invalidation.invalidate('account', account.id);
    await this.audit.recordBy(actor, 'account.plan_changed', { type: 'account', id: account.id }, { from: before.planId, to: planId });
    return toAccountDto(account);
  }
}

import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/current-principal.decorator';
import { AppError } from '../common/errors/app-error';
import type { AuditEvent, Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';
import type { AuditAction } from './audit-actions';
import { AUDIT_CSV_HEADER, auditCsvLine } from './audit-csv';
import { AuditEventDto, AuditEventPageDto, AuditFiltersQuery, ListAuditEventsQuery } from './dto/audit-event.dto';

export interface AuditEntry {
  readonly accountId: string;
  readonly action: AuditAction;
  readonly requestId: string;
  /** The client IP of the request (RequestSource); null outside a request. */
  readonly ip: string | null;
  readonly actorId?: string | null;
  readonly actorEmail?: string | null;
  readonly target?: { readonly type: string; readonly id: string };
  /** What changed. Never a secret: callers pass names, roles, plans — not keys or tokens. */
  readonly details?: Prisma.InputJsonObject;
}

/** Who and what an event names, as the account knows them now (AuditService.namesFor). */
interface Names {
  readonly users: ReadonlyMap<string, string>;
  readonly apiKeys: ReadonlyMap<string, string>;
  readonly invitations: ReadonlyMap<string, string>;
  readonly webhooks: ReadonlyMap<string, string>;
  readonly account: string | null;
}

function targetNameOf(e: AuditEvent, names: Names): string | null {
  if (e.targetId === null) return null;
  switch (e.targetType) {
    case 'user':
      return names.users.get(e.targetId) ?? null;
    case 'api_key':
      return names.apiKeys.get(e.targetId) ?? null;
    case 'invitation':
      return names.invitations.get(e.targetId) ?? null;
    case 'webhook':
      return names.webhooks.get(e.targetId) ?? null;
    case 'account':
      return names.account;
    case null:
    default:
      return null;
  }
}

const toDto = (e: AuditEvent, names: Names): AuditEventDto => ({
  id: e.id,
  action: e.action as AuditAction,
  actorId: e.actorId,
  actorEmail: e.actorEmail,
  actorName: e.actorId === null ? null : (names.users.get(e.actorId) ?? null),
  targetType: e.targetType,
  targetId: e.targetId,
  targetName: targetNameOf(e, names),
  requestId: e.requestId,
  ip: e.ip,
  details: (e.details as Record<string, unknown> | null) ?? null,
  createdAt: e.createdAt.toISOString(),
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NEWEST_FIRST = [{ createdAt: 'desc' }, { id: 'desc' }] satisfies Prisma.AuditEventOrderByWithRelationInput[];

/**
 * Events after `e` in NEWEST_FIRST order (older, or as old with a lower id). The bound on createdAt
 * alone lets the database start its index scan there rather than at the newest event: without it
 * each page of an export would scan the pages before it again.
 */
const olderThan = (e: { createdAt: Date; id: string }): Prisma.AuditEventWhereInput => ({
  createdAt: { lte: e.createdAt },
  OR: [{ createdAt: { lt: e.createdAt } }, { id: { lt: e.id } }],
});

/**
 * The most rows one CSV export holds (docs/API.md, "The audit log as CSV"): a filtered range with more
 * is refused with 400 validation_failed, before anything is sent, and must be narrowed.
 */
export const AUDIT_EXPORT_MAX_ROWS = 100_000;
/** Rows the export reads from the database at a time. */
const EXPORT_BATCH = 1000;

/** Cursor: base64url of "<createdAt ISO>|<id>" of the last event on the page. */
function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const createdAt = new Date(at ?? '');
  if (Number.isNaN(createdAt.getTime()) || !/^[0-9a-f-]{36}$/.test(id ?? '')) {
    throw new AppError('validation_failed', 'cursor is not a nextCursor value.', [
      { field: 'cursor', message: 'cursor must be a nextCursor value' },
    ]);
  }
  return { createdAt, id };
}

@Injectable()
export class AuditService {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Writes `entry` through `db`: the transaction client of the change it records, so the change and
   * its event commit together or not at all (anything else that must commit with the change, such
   * as an outgoing event, takes the same client). `this.prisma` only for an event that records no
   * change of its own (a login).
   */
  async record(db: Prisma.TransactionClient, entry: AuditEntry): Promise<void> {
    await db.auditEvent.create({
      data: {
        accountId: entry.accountId,
        action: entry.action,
        requestId: entry.requestId,
        ip: entry.ip,
        actorId: entry.actorId ?? null,
        actorEmail: entry.actorEmail ?? null,
        targetType: entry.target?.type ?? null,
        targetId: entry.target?.id ?? null,
        details: entry.details,
      },
    });
  }

  /** What `actor` did to a target in their own account, in the change's transaction `tx`. */
  recordBy(
    tx: Prisma.TransactionClient,
    actor: Actor,
    action: AuditAction,
    target?: AuditEntry['target'],
    details?: Prisma.InputJsonObject,
  ): Promise<void> {
    return this.record(tx, {
      accountId: actor.accountId,
      actorId: actor.userId,
      actorEmail: actor.email,
      action,
      requestId: actor.requestId,
      ip: actor.ip,
      target,
      details,
    });
  }

  async list(accountId: string, q: ListAuditEventsQuery): Promise<AuditEventPageDto> {
    const limit = q.limit ?? 50;
    const after = q.cursor !== undefined ? decodeCursor(q.cursor) : undefined;
    const where = whereOf(accountId, q);
    const events = await this.prisma.auditEvent.findMany({
      where: after ? { AND: [where, olderThan(after)] } : where,
      orderBy: NEWEST_FIRST,
      take: limit + 1,
    });
    const page = events.slice(0, limit);
    const last = page[page.length - 1];
    const names = await this.namesFor(accountId, page);
    return {
      data: page.map((e) => toDto(e, names)),
      nextCursor: events.length > limit && last ? Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString('base64url') : null,
    };
  }

  /**
   * The filtered events as CSV text, newest first, read from the database a batch at a time as the
   * answer is sent (docs/API.md, "The audit log as CSV"). Refusals — a bad filter, a range of more
   * than AUDIT_EXPORT_MAX_ROWS events, the database down — come before the first byte, while an
   * error body can still be answered.
   */
  async export(accountId: string, q: AuditFiltersQuery): Promise<AsyncGenerator<string>> {
    const where = whereOf(accountId, q);
    const first = await this.prisma.auditEvent.findMany({ where, orderBy: NEWEST_FIRST, take: EXPORT_BATCH });
    if (first.length === EXPORT_BATCH) {
      // Counted up to the newest row read: events recorded meanwhile are not exported, nor counted.
      const top = first[0];
      const atOrBelowTop: Prisma.AuditEventWhereInput = {
        createdAt: { lte: top.createdAt },
        OR: [{ createdAt: { lt: top.createdAt } }, { id: { lte: top.id } }],
      };
      const count = await this.prisma.auditEvent.count({ where: { AND: [where, atOrBelowTop] }, take: AUDIT_EXPORT_MAX_ROWS + 1 });
      if (count > AUDIT_EXPORT_MAX_ROWS) {
        const message = `The range holds more than ${AUDIT_EXPORT_MAX_ROWS} events, the most one export holds: narrow it with from and to (or a filter).`;
        throw new AppError('validation_failed', message, [
          { field: 'from', message: `at most ${AUDIT_EXPORT_MAX_ROWS} events per export` },
        ]);
      }
    }
    const firstNames = await this.namesFor(accountId, first);
    return this.csvLines(accountId, where, first, firstNames);
  }

  private async *csvLines(
    accountId: string,
    where: Prisma.AuditEventWhereInput,
    first: AuditEvent[],
    firstNames: Names,
  ): AsyncGenerator<string> {
    yield AUDIT_CSV_HEADER;
    let batch = first;
    let names = firstNames;
    for (;;) {
      yield batch.map((e) => auditCsvLine(toDto(e, names))).join('');
      const last = batch[batch.length - 1];
      if (batch.length < EXPORT_BATCH || last === undefined) return;
      batch = await this.prisma.auditEvent.findMany({
        where: { AND: [where, olderThan(last)] },
        orderBy: NEWEST_FIRST,
        take: EXPORT_BATCH,
      });
      names = await this.namesFor(accountId, batch);
    }
  }

  /** The current names of the users, keys, invitations, webhook endpoints (their URL) and account that `events` mention, in one query per kind. */
  private async namesFor(accountId: string, events: readonly AuditEvent[]): Promise<Names> {
    const ids = (type: string) => [...new Set(events.filter((e) => e.targetType === type && e.targetId !== null).map((e) => e.targetId!))];
    const userIds = [...new Set([...ids('user'), ...events.map((e) => e.actorId).filter((id): id is string => id !== null)])].filter((id) =>
      UUID.test(id),
    );
    const keyIds = ids('api_key').filter((id) => UUID.test(id));
    const invitationIds = ids('invitation').filter((id) => UUID.test(id));
    const webhookIds = ids('webhook').filter((id) => UUID.test(id));
    const [users, apiKeys, invitations, webhooks, account] = await Promise.all([
      userIds.length === 0
        ? []
        : this.prisma.user.findMany({ where: { accountId, id: { in: userIds } }, select: { id: true, email: true } }),
      keyIds.length === 0
        ? []
        : this.prisma.apiKey.findMany({ where: { accountId, id: { in: keyIds } }, select: { id: true, name: true } }),
      invitationIds.length === 0
        ? []
        : this.prisma.invitation.findMany({ where: { accountId, id: { in: invitationIds } }, select: { id: true, email: true } }),
      webhookIds.length === 0
        ? []
        : this.prisma.webhookEndpoint.findMany({ where: { accountId, id: { in: webhookIds } }, select: { id: true, url: true } }),
      events.some((e) => e.targetType === 'account' && e.targetId === accountId)
        ? this.prisma.account.findUnique({ where: { id: accountId }, select: { name: true } })
        : null,
    ]);
    return {
      users: new Map(users.map((u) => [u.id, u.email])),
      apiKeys: new Map(apiKeys.map((k) => [k.id, k.name])),
      invitations: new Map(invitations.map((i) => [i.id, i.email])),
      webhooks: new Map(webhooks.map((w) => [w.id, w.url])),
      account: account?.name ?? null,
    };
  }
}

/** The filters as a query; 400 when `from` comes after `to`. */
function whereOf(accountId: string, q: AuditFiltersQuery): Prisma.AuditEventWhereInput {
  if (q.from !== undefined && q.to !== undefined && new Date(q.from) > new Date(q.to)) {
    throw new AppError('validation_failed', 'from must not be after to.', [{ field: 'from', message: 'from must not be after to' }]);
  }
  return {
    accountId,
    action: q.action,
    actorId: q.actorId,
    createdAt: { gte: q.from !== undefined ? new Date(q.from) : undefined, lt: q.to !== undefined ? new Date(q.to) : undefined },
  };
}

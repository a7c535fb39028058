import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/current-principal.decorator';
import { AppError } from '../common/errors/app-error';
import type { AuditEvent, Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';
import type { AuditAction } from './audit-actions';
import { AuditEventDto, AuditEventPageDto, ListAuditEventsQuery } from './dto/audit-event.dto';

export interface AuditEntry {
  readonly accountId: string;
  readonly action: AuditAction;
  readonly requestId: string;
  readonly actorId?: string | null;
  readonly actorEmail?: string | null;
  readonly target?: { readonly type: string; readonly id: string };
  /** What changed. Never a secret: callers pass names, roles, plans — not keys or tokens. */
  readonly details?: Prisma.InputJsonObject;
}

const toDto = (e: AuditEvent): AuditEventDto => ({
  id: e.id,
  action: e.action as AuditAction,
  actorId: e.actorId,
  actorEmail: e.actorEmail,
  targetType: e.targetType,
  targetId: e.targetId,
  requestId: e.requestId,
  details: (e.details as Record<string, unknown> | null) ?? null,
  createdAt: e.createdAt.toISOString(),
});

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
      target,
      details,
    });
  }

  async list(accountId: string, q: ListAuditEventsQuery): Promise<AuditEventPageDto> {
    const limit = q.limit ?? 50;
    const after = q.cursor !== undefined ? decodeCursor(q.cursor) : undefined;
    if (q.from !== undefined && q.to !== undefined && new Date(q.from) > new Date(q.to)) {
      throw new AppError('validation_failed', 'from must not be after to.', [{ field: 'from', message: 'from must not be after to' }]);
    }
    const events = await this.prisma.auditEvent.findMany({
      where: {
        accountId,
        action: q.action,
        createdAt: { gte: q.from !== undefined ? new Date(q.from) : undefined, lt: q.to !== undefined ? new Date(q.to) : undefined },
        ...(after && { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit + 1,
    });
    const page = events.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map(toDto),
      nextCursor: events.length > limit && last ? Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString('base64url') : null,
    };
  }
}

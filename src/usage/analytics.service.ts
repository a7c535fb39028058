import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';
import { GroupBy, StatusClass, UsageQuery, UsageReportDto, WidgetGroupBy, WidgetStatsQuery, WidgetStatsReportDto } from './dto/usage.dto';
import { EVENT_STATUS, failedChallengeTally, invalidNonceTally, UsageRecorder, widgetEndpoint } from './usage.recorder';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** Longest range per grain (so a query reads a bounded number of rows and answers a bounded list). */
const MAX_RANGE: Record<GroupBy, number> = {
  minute: DAY,
  hour: 31 * DAY,
  day: 366 * DAY,
  endpoint: 366 * DAY,
  apiKey: 366 * DAY,
  status: 366 * DAY,
};
const DEFAULT_RANGE: Record<GroupBy, number> = { minute: HOUR, hour: DAY, day: 30 * DAY, endpoint: DAY, apiKey: DAY, status: DAY };

/** The grouping expressions: fixed SQL, never built from input. */
const GROUP_SQL: Record<GroupBy, Prisma.Sql> = {
  endpoint: Prisma.sql`"endpoint"`,
  apiKey: Prisma.sql`"subjectId"::text`,
  status: Prisma.sql`"status"::text`,
  minute: Prisma.sql`to_char(date_trunc('minute', "minute"), 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"')`,
  hour: Prisma.sql`to_char(date_trunc('hour', "minute"), 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"')`,
  day: Prisma.sql`to_char(date_trunc('day', "minute"), 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"')`,
};

const invalid = (field: string, message: string) => new AppError('validation_failed', message, [{ field, message }]);

/** The sum of one widget row's counts (an event or a tally). */
const sumOf = (name: string) => Prisma.sql`COALESCE(SUM("count") FILTER (WHERE "endpoint" = ${widgetEndpoint(name)}), 0)`;

interface Range {
  readonly from: Date;
  readonly to: Date;
}

@Injectable()
export class AnalyticsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly recorder: UsageRecorder,
  ) {}

  /** Request counts: every row but widget events (status 0, see UsageRecorder.event). */
  async usage(accountId: string, q: UsageQuery): Promise<UsageReportDto> {
    const range = await this.rangeAndKey(accountId, q);
    const filters = [
      ...this.rowsOf(accountId, range, q.apiKeyId),
      Prisma.sql`"status" <> ${EVENT_STATUS}`,
      ...(q.groupBy === 'apiKey' ? [Prisma.sql`"subjectKind" = 'apiKey'`] : []),
      ...(q.endpoint !== undefined ? [Prisma.sql`"endpoint" = ${q.endpoint}`] : []),
      ...(q.statusClass !== undefined ? this.statusClass(q.statusClass) : []),
      ...(q.caller !== undefined ? [Prisma.sql`"subjectKind" = ${q.caller}`] : []),
    ];
    const rows = await this.prisma.$queryRaw<Array<{ key: string; count: bigint | number }>>`
      SELECT ${GROUP_SQL[q.groupBy]} AS "key", SUM("count") AS "count"
      FROM "UsageCounter" WHERE ${Prisma.join(filters, ' AND ')}
      GROUP BY 1 ORDER BY 1`;
    return { ...this.rangeDto(range), groupBy: q.groupBy, data: rows.map((r) => ({ key: r.key, count: Number(r.count) })) };
  }

  /** The widget's events, summed per group: challenges issued, solved and failed (and why failed), nonces verified valid and invalid (and why invalid). */
  async widget(accountId: string, q: WidgetStatsQuery): Promise<WidgetStatsReportDto> {
    const range = await this.rangeAndKey(accountId, q);
    const filters = [...this.rowsOf(accountId, range, q.apiKeyId), Prisma.sql`"status" = ${EVENT_STATUS}`];
    const rows = await this.prisma.$queryRaw<
      Array<
        Record<
          | 'key'
          | 'issued'
          | 'solved'
          | 'failed'
          | 'failedInvalid'
          | 'failedExpired'
          | 'failedUsed'
          | 'failedOrigin'
          | 'valid'
          | 'invalid'
          | 'unknown'
          | 'expired'
          | 'used',
          string | bigint
        >
      >
    >`
      SELECT ${GROUP_SQL[q.groupBy]} AS "key",
        ${sumOf('challenge_issued')} AS "issued", ${sumOf('challenge_solved')} AS "solved", ${sumOf('challenge_failed')} AS "failed",
        ${sumOf(failedChallengeTally('invalid'))} AS "failedInvalid", ${sumOf(failedChallengeTally('expired'))} AS "failedExpired",
        ${sumOf(failedChallengeTally('already_used'))} AS "failedUsed", ${sumOf(failedChallengeTally('origin'))} AS "failedOrigin",
        ${sumOf('nonce_valid')} AS "valid", ${sumOf('nonce_invalid')} AS "invalid",
        ${sumOf(invalidNonceTally('unknown'))} AS "unknown", ${sumOf(invalidNonceTally('expired'))} AS "expired",
        ${sumOf(invalidNonceTally('already_used'))} AS "used"
      FROM "UsageCounter" WHERE ${Prisma.join(filters, ' AND ')}
      GROUP BY 1 ORDER BY 1`;
    return {
      ...this.rangeDto(range),
      groupBy: q.groupBy,
      data: rows.map((r) => ({
        key: String(r.key),
        challengesIssued: Number(r.issued),
        challengesSolved: Number(r.solved),
        challengesFailed: Number(r.failed),
        challengesFailedInvalid: Number(r.failedInvalid),
        challengesFailedExpired: Number(r.failedExpired),
        challengesFailedAlreadyUsed: Number(r.failedUsed),
        challengesFailedOrigin: Number(r.failedOrigin),
        noncesValid: Number(r.valid),
        noncesInvalid: Number(r.invalid),
        noncesUnknown: Number(r.unknown),
        noncesExpired: Number(r.expired),
        noncesAlreadyUsed: Number(r.used),
      })),
    };
  }

  /**
   * The query's range (defaults and bounds per grain) after checking its key is the account's; then
   * this instance's pending counts are written, so a report includes the requests it has just
   * answered (on the embedded database, the open minute is written only here and at its end).
   */
  private async rangeAndKey(
    accountId: string,
    q: { from?: string; to?: string; groupBy: GroupBy | WidgetGroupBy; apiKeyId?: string },
  ): Promise<Range> {
    const to = q.to !== undefined ? new Date(q.to) : new Date();
    const from = q.from !== undefined ? new Date(q.from) : new Date(to.getTime() - DEFAULT_RANGE[q.groupBy]);
    if (from >= to) throw invalid('from', 'from must be before to');
    if (to.getTime() - from.getTime() > MAX_RANGE[q.groupBy]) {
      throw invalid('from', `groupBy=${q.groupBy} covers at most ${MAX_RANGE[q.groupBy] / DAY} days; narrow from/to`);
    }
    if (q.apiKeyId !== undefined && (await this.prisma.apiKey.count({ where: { id: q.apiKeyId, accountId } })) === 0) {
      throw new AppError('not_found', 'No such API key.');
    }
    await this.recorder.flush();
    return { from, to };
  }

  /** The account's rows in the range, of one API key when given. */
  private rowsOf(accountId: string, { from, to }: Range, apiKeyId: string | undefined): Prisma.Sql[] {
    return [
      Prisma.sql`"accountId" = ${accountId}::uuid`,
      Prisma.sql`"minute" >= ${from}`,
      Prisma.sql`"minute" < ${to}`,
      ...(apiKeyId !== undefined ? [Prisma.sql`"subjectKind" = 'apiKey'`, Prisma.sql`"subjectId" = ${apiKeyId}::uuid`] : []),
    ];
  }

  /** "4xx": 400 to 499. */
  private statusClass(statusClass: StatusClass): Prisma.Sql[] {
    const low = Number(statusClass[0]) * 100;
    return [Prisma.sql`"status" >= ${low}`, Prisma.sql`"status" < ${low + 100}`];
  }

  private rangeDto({ from, to }: Range): { from: string; to: string } {
    return { from: from.toISOString(), to: to.toISOString() };
  }
}

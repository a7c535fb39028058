import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';
import { GroupBy, UsageQuery, UsageReportDto } from './dto/usage.dto';
import { UsageRecorder } from './usage.recorder';

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

@Injectable()
export class AnalyticsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly recorder: UsageRecorder,
  ) {}

  async usage(accountId: string, q: UsageQuery): Promise<UsageReportDto> {
    const to = q.to !== undefined ? new Date(q.to) : new Date();
    const from = q.from !== undefined ? new Date(q.from) : new Date(to.getTime() - DEFAULT_RANGE[q.groupBy]);
    if (from >= to) throw invalid('from', 'from must be before to');
    if (to.getTime() - from.getTime() > MAX_RANGE[q.groupBy]) {
      throw invalid('from', `groupBy=${q.groupBy} covers at most ${MAX_RANGE[q.groupBy] / DAY} days; narrow from/to`);
    }
    if (q.apiKeyId !== undefined && (await this.prisma.apiKey.count({ where: { id: q.apiKeyId, accountId } })) === 0) {
      throw new AppError('not_found', 'No such API key.');
    }
    const filters = [
      Prisma.sql`"accountId" = ${accountId}::uuid`,
      Prisma.sql`"minute" >= ${from}`,
      Prisma.sql`"minute" < ${to}`,
      ...(q.groupBy === 'apiKey' || q.apiKeyId !== undefined ? [Prisma.sql`"subjectKind" = 'apiKey'`] : []),
      ...(q.apiKeyId !== undefined ? [Prisma.sql`"subjectId" = ${q.apiKeyId}::uuid`] : []),
      ...(q.endpoint !== undefined ? [Prisma.sql`"endpoint" = ${q.endpoint}`] : []),
    ];
    // This instance's pending counts first, so the report includes the requests it has just
    // answered (on the embedded database, the open minute is written only here and at its end).
    await this.recorder.flush();
    const rows = await this.prisma.$queryRaw<Array<{ key: string; count: bigint | number }>>`
      SELECT ${GROUP_SQL[q.groupBy]} AS "key", SUM("count") AS "count"
      FROM "UsageCounter" WHERE ${Prisma.join(filters, ' AND ')}
      GROUP BY 1 ORDER BY 1`;
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      groupBy: q.groupBy,
      data: rows.map((r) => ({ key: r.key, count: Number(r.count) })),
    };
  }
}

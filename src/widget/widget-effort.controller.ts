import { Controller, Get, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { JwtAuth } from '../common/auth.decorators';
import { CurrentPrincipal } from '../common/current-principal.decorator';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { AppError } from '../common/errors/app-error';
import type { UserPrincipal } from '../common/principal';
import { PrismaService } from '../prisma/prisma.service';
import { EVENT_STATUS, UsageRecorder, widgetEndpoint } from '../usage/usage.recorder';
import { WidgetEffortDto, WidgetEffortQuery } from './dto/widget-effort.dto';
import { BOT_MS_PER_CANDIDATE, MAX_COUNTER, type WaitLevel } from './pow';
import { SOLVE_PREFIX, SURGED, quantile } from './solve-times';

const DAY_MS = 24 * 3600_000;
const SURGE_WINDOW_MS = 5 * 60_000;

@ApiTags('Analytics')
@Controller('analytics/widget')
export class WidgetEffortController {
  constructor(
    private readonly prisma: PrismaService,
    private readonly recorder: UsageRecorder,
  ) {}

  @Get('effort')
  @JwtAuth()
  @ApiOperation({
    summary:
      'What a widget key’s proof of work costs: the level in force, whether a surge is on, people’s solve times over 24 h, a bot’s price',
  })
  @ApiOkResponse({ type: WidgetEffortDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found — apiKeyId is not a key of this account' })
  async effort(@CurrentPrincipal() user: UserPrincipal, @Query() { apiKeyId }: WidgetEffortQuery): Promise<WidgetEffortDto> {
    const key = await this.prisma.apiKey.findFirst({
      where: { id: apiKeyId, accountId: user.accountId },
      select: { challengeWaitMs: true, account: { select: { plan: { select: { challengeWaitMs: true } } } } },
    });
    if (key === null) throw new AppError('not_found', 'No such API key.');
    await this.recorder.flush();
    const to = new Date();
    const from = new Date(to.getTime() - DAY_MS);
    const rows = await this.prisma.$queryRaw<Array<{ endpoint: string; recent: bigint | number; count: bigint | number }>>`
      SELECT "endpoint", SUM("count") AS "count", COALESCE(SUM("count") FILTER (WHERE "minute" >= ${new Date(to.getTime() - SURGE_WINDOW_MS)}), 0) AS "recent"
      FROM "UsageCounter"
      WHERE "accountId" = ${user.accountId}::uuid AND "subjectKind" = 'apiKey' AND "subjectId" = ${apiKeyId}::uuid
        AND "status" = ${EVENT_STATUS} AND "minute" >= ${from} AND "minute" < ${to}
        AND ("endpoint" LIKE ${`${widgetEndpoint(SOLVE_PREFIX)}%`} OR "endpoint" = ${widgetEndpoint(SURGED)})
      GROUP BY 1`;
    const counts = new Map<number, number>();
    let surge = false;
    for (const r of rows) {
      if (r.endpoint === widgetEndpoint(SURGED)) surge = Number(r.recent) > 0;
      else counts.set(Number(r.endpoint.slice(widgetEndpoint(SOLVE_PREFIX).length)), Number(r.count));
    }
    const waitMs = (key.challengeWaitMs ?? key.account.plan.challengeWaitMs) as WaitLevel;
    return {
      apiKeyId,
      from: from.toISOString(),
      to: to.toISOString(),
      waitMs,
      waitFromPlan: key.challengeWaitMs === null,
      surge,
      solves: [...counts.values()].reduce((a, b) => a + b, 0),
      solveMsMedian: quantile(counts, 0.5),
      solveMsP90: quantile(counts, 0.9),
      // The solution is uniform in [0, MAX]: a bot tries MAX / 2 + 1 candidates a nonce on average.
      botCpuSecondsPer1000Nonces: Math.round((MAX_COUNTER[waitMs] / 2 + 1) * BOT_MS_PER_CANDIDATE),
    };
  }
}

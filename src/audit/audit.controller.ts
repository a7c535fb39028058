import { Readable } from 'node:stream';
import { Controller, Get, Query, Res, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { JwtAuth } from '../common/auth.decorators';
import { CurrentPrincipal } from '../common/current-principal.decorator';
import type { UserPrincipal } from '../common/principal';
import type { Reply } from '../common/request';
import { AppError } from '../common/errors/app-error';
import { AUDIT_CSV_COLUMNS } from './audit-csv';
import { AUDIT_EXPORT_MAX_ROWS, AuditService } from './audit.service';
import { AuditEventPageDto, AuditFiltersQuery, ListAuditEventsQuery } from './dto/audit-event.dto';

/** CSV exports of one account's audit log that may run at once on an instance; one more answers 429. */
export const AUDIT_EXPORTS_AT_ONCE = 2;

@ApiTags('Audit log')
@Controller('audit-log')
export class AuditController {
  /** Exports being sent by this instance, per account: each holds a database cursor's worth of work for seconds. */
  private readonly running = new Map<string, number>();

  constructor(private readonly audit: AuditService) {}

  @Get()
  @JwtAuth('OWNER', 'ADMIN')
  @ApiOperation({ summary: 'Who did what in this account: logins, key, member, account and plan changes' })
  @ApiOkResponse({ type: AuditEventPageDto })
  list(@CurrentPrincipal() user: UserPrincipal, @Query() query: ListAuditEventsQuery): Promise<AuditEventPageDto> {
    return this.audit.list(user.accountId, query);
  }

  @Get('export.csv')
  @JwtAuth('OWNER', 'ADMIN')
  @ApiOperation({
    summary: 'The filtered audit log as a CSV download',
    description:
      `Every event the filters select, newest first, streamed as it is read (at most ${AUDIT_EXPORT_MAX_ROWS} events: ` +
      'a range with more answers 400 validation_failed before anything is sent). ' +
      `At most ${AUDIT_EXPORTS_AT_ONCE} exports of an account run at once on an instance; one more answers 429 rate_limit_exceeded with Retry-After. Columns: ` +
      `${AUDIT_CSV_COLUMNS.join(', ')}; a cell starting with = + - @ (or a tab or carriage return) gets a leading ' so ` +
      'that spreadsheets never run it as a formula.',
  })
  @ApiOkResponse({
    description: 'RFC 4180 CSV (UTF-8, CRLF line ends), a header row first.',
    content: { 'text/csv': { schema: { type: 'string' } } },
    headers: {
      'Content-Disposition': {
        required: true,
        description: 'attachment; filename="audit-log-<yyyy-mm-dd>.csv" (the day of the export, UTC).',
        schema: { type: 'string' },
      },
    },
  })
  async export(
    @CurrentPrincipal() user: UserPrincipal,
    @Query() query: AuditFiltersQuery,
    @Res({ passthrough: true }) reply: Reply,
  ): Promise<StreamableFile> {
    // The answer's end — whole, refused, or cut short by either side — ends the export's turn.
    reply.raw.once('close', this.claimExport(user.accountId));
    const lines = await this.audit.export(user.accountId, query);
    void reply.header('cache-control', 'no-store');
    const day = new Date().toISOString().slice(0, 10);
    return new StreamableFile(Readable.from(lines, { objectMode: false }), {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="audit-log-${day}.csv"`,
    });
  }

  private claimExport(accountId: string): () => void {
    const running = this.running.get(accountId) ?? 0;
    if (running >= AUDIT_EXPORTS_AT_ONCE)
      throw new AppError(
        'rate_limit_exceeded',
        `At most ${AUDIT_EXPORTS_AT_ONCE} exports of an account's audit log run at once: retry when one has finished.`,
      ).withRetryAfter(5);
    this.running.set(accountId, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(accountId) ?? 1) - 1;
      if (left > 0) this.running.set(accountId, left);
      else this.running.delete(accountId);
    };
  }
}

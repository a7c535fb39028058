import { Readable } from 'node:stream';
import { Controller, Get, Query, Res, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { JwtAuth } from '../common/auth.decorators';
import { CurrentPrincipal } from '../common/current-principal.decorator';
import type { UserPrincipal } from '../common/principal';
import type { Reply } from '../common/request';
import { AUDIT_CSV_COLUMNS } from './audit-csv';
import { AUDIT_EXPORT_MAX_ROWS, AuditService } from './audit.service';
import { AuditEventPageDto, AuditFiltersQuery, ListAuditEventsQuery } from './dto/audit-event.dto';

@ApiTags('Audit log')
@Controller('audit-log')
export class AuditController {
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
      'a range with more answers 400 validation_failed before anything is sent). Columns: ' +
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
    const lines = await this.audit.export(user.accountId, query);
    void reply.header('cache-control', 'no-store');
    const day = new Date().toISOString().slice(0, 10);
    return new StreamableFile(Readable.from(lines, { objectMode: false }), {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="audit-log-${day}.csv"`,
    });
  }
}

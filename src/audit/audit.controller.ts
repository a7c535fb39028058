import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { JwtAuth } from '../common/auth.decorators';
import { CurrentPrincipal } from '../common/current-principal.decorator';
import type { UserPrincipal } from '../common/principal';
import { AuditService } from './audit.service';
import { AuditEventPageDto, ListAuditEventsQuery } from './dto/audit-event.dto';

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
}

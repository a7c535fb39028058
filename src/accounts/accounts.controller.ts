import { Body, Controller, Delete, Get, HttpCode, Patch, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { JwtAuth } from '../common/auth.decorators';
import { Actor, CurrentActor, CurrentPrincipal } from '../common/current-principal.decorator';
import type { UserPrincipal } from '../common/principal';
import { AccountsService } from './accounts.service';
import { AccountDto, ChangePlanDto, DeleteAccountDto, UpdateAccountDto } from './dto/account.dto';

@ApiTags('Account')
@Controller('account')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @JwtAuth()
  @ApiOperation({ summary: 'The caller’s account and its plan' })
  @ApiOkResponse({ type: AccountDto })
  get(@CurrentPrincipal() user: UserPrincipal): Promise<AccountDto> {
    return this.accounts.get(user.accountId);
  }

  @Patch()
  @JwtAuth('OWNER', 'ADMIN')
  @ApiOperation({ summary: 'Rename the account or change its nonce lifetime' })
  @ApiOkResponse({ type: AccountDto })
  update(@CurrentActor() actor: Actor, @Body() dto: UpdateAccountDto): Promise<AccountDto> {
    return this.accounts.update(actor, dto);
  }

  @Delete()
  @JwtAuth('OWNER')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete the account and all its data; confirm with its name',
    description:
      'Every key, token and invitation of the account stops working at once on every instance; users, keys, nonces, usage, audit events and webhooks are purged. A record of the deletion (who, when) stays outside the account.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  delete(@CurrentActor() actor: Actor, @Body() dto: DeleteAccountDto): Promise<void> {
    return this.accounts.delete(actor, dto.confirm);
  }

  @Put('plan')
  @JwtAuth('OWNER')
  @ApiOperation({ summary: 'Change the plan; the new rate limits apply from the next request' })
  @ApiOkResponse({ type: AccountDto })
  changePlan(@CurrentActor() actor: Actor, @Body() dto: ChangePlanDto): Promise<AccountDto> {
    return this.accounts.changePlan(actor, dto.plan);
  }
}

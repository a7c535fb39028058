import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { JwtAuth } from '../common/auth.decorators';
import { CurrentPrincipal } from '../common/current-principal.decorator';
import type { UserPrincipal } from '../common/principal';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { IdParamDto } from '../common/dto/id-param.dto';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { WebhookEndpointDto, WebhookEndpointListDto } from './dto/webhook-endpoint.dto';
import { WebhooksService } from './webhooks.service';

@ApiTags('Webhooks')
@JwtAuth('OWNER', 'ADMIN', 'DEVELOPER')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @ApiOperation({ summary: "List the account's webhook endpoints" })
  @ApiOkResponse({ type: WebhookEndpointListDto })
  async list(@CurrentPrincipal() actor: UserPrincipal): Promise<WebhookEndpointListDto> {
    return { data: await this.webhooks.list(actor) };
  }

  @Post()
  @ApiOperation({ summary: 'Register a webhook endpoint (an https URL)' })
  @ApiCreatedResponse({ type: WebhookEndpointDto })
  create(@CurrentPrincipal() actor: UserPrincipal, @Body() dto: CreateWebhookEndpointDto): Promise<WebhookEndpointDto> {
    return this.webhooks.create(actor, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a webhook endpoint' })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found' })
  remove(@CurrentPrincipal() actor: UserPrincipal, @Param() { id }: IdParamDto): Promise<void> {
    return this.webhooks.remove(actor, id);
  }
}

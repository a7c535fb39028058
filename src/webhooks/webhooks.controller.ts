import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { JwtAuth } from '../common/auth.decorators';
import { Actor, CurrentActor } from '../common/current-principal.decorator';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { IdParamDto } from '../common/dto/id-param.dto';
import { CreateWebhookEndpointDto } from './dto/create-webhook-endpoint.dto';
import { RotateWebhookSecretDto } from './dto/rotate-webhook-secret.dto';
import { UpdateWebhookEndpointDto } from './dto/update-webhook-endpoint.dto';
import { DeliveryParamsDto, ListWebhookDeliveriesQuery, WebhookDeliveryPageDto } from './dto/webhook-delivery.dto';
import {
  AcceptedDeliveryDto,
  CreatedWebhookEndpointDto,
  RotatedWebhookSecretDto,
  WebhookEndpointDto,
  WebhookEndpointListDto,
} from './dto/webhook-endpoint.dto';
import { WebhooksService } from './webhooks.service';

@ApiTags('Webhooks')
@JwtAuth('OWNER', 'ADMIN', 'DEVELOPER')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @ApiOperation({ summary: "List the account's webhook endpoints (never their secrets)" })
  @ApiOkResponse({ type: WebhookEndpointListDto })
  async list(@CurrentActor() actor: Actor): Promise<WebhookEndpointListDto> {
    return { data: await this.webhooks.list(actor) };
  }

  @Post()
  @ApiOperation({ summary: 'Register a webhook endpoint; the response shows its signing secret, once' })
  @ApiCreatedResponse({ type: CreatedWebhookEndpointDto })
  create(@CurrentActor() actor: Actor, @Body() dto: CreateWebhookEndpointDto): Promise<CreatedWebhookEndpointDto> {
    return this.webhooks.create(actor, dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read one webhook endpoint' })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found' })
  get(@CurrentActor() actor: Actor, @Param() { id }: IdParamDto): Promise<WebhookEndpointDto> {
    return this.webhooks.get(actor, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: "Change an endpoint's URL, events, description, or enable or disable it" })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found' })
  update(@CurrentActor() actor: Actor, @Param() { id }: IdParamDto, @Body() dto: UpdateWebhookEndpointDto): Promise<WebhookEndpointDto> {
    return this.webhooks.update(actor, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a webhook endpoint and its deliveries' })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found' })
  remove(@CurrentActor() actor: Actor, @Param() { id }: IdParamDto): Promise<void> {
    return this.webhooks.remove(actor, id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({ summary: 'Issue a new signing secret; the old one also signs for gracePeriodSeconds' })
  @ApiOkResponse({ type: RotatedWebhookSecretDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found' })
  rotateSecret(
    @CurrentActor() actor: Actor,
    @Param() { id }: IdParamDto,
    @Body() dto: RotateWebhookSecretDto,
  ): Promise<RotatedWebhookSecretDto> {
    return this.webhooks.rotateSecret(actor, id, dto.gracePeriodSeconds);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a webhook.test event to this endpoint' })
  @ApiAcceptedResponse({ type: AcceptedDeliveryDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found' })
  async test(@CurrentActor() actor: Actor, @Param() { id }: IdParamDto): Promise<AcceptedDeliveryDto> {
    return { deliveryId: await this.webhooks.sendTest(actor, id) };
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "An endpoint's deliveries with their attempts, newest first" })
  @ApiOkResponse({ type: WebhookDeliveryPageDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found' })
  deliveries(
    @CurrentActor() actor: Actor,
    @Param() { id }: IdParamDto,
    @Query() query: ListWebhookDeliveriesQuery,
  ): Promise<WebhookDeliveryPageDto> {
    return this.webhooks.deliveries(actor, id, query.cursor);
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(202)
  @ApiOperation({ summary: 'Attempt a delivered or failed delivery again now, with the same webhook-id' })
  @ApiAcceptedResponse({ type: AcceptedDeliveryDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found' })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'conflict: the delivery is pending, or the endpoint is disabled' })
  async retry(@CurrentActor() actor: Actor, @Param() { id, deliveryId }: DeliveryParamsDto): Promise<AcceptedDeliveryDto> {
    await this.webhooks.retry(actor, id, deliveryId);
    return { deliveryId };
  }
}

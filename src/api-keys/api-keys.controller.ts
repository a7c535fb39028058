import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { JwtAuth } from '../common/auth.decorators';
import { Actor, CurrentActor, CurrentPrincipal } from '../common/current-principal.decorator';
import type { UserPrincipal } from '../common/principal';
import { ErrorResponseDto } from '../common/dto/error-response.dto';
import { IdParamDto } from '../common/dto/id-param.dto';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyDto, ApiKeyListDto, ApiKeyWithSecretDto } from './dto/api-key.dto';
import { CreateApiKeyDto } from './dto/create-api-key.dto';
import { RotateApiKeyDto } from './dto/rotate-api-key.dto';
import { UpdateApiKeyDto } from './dto/update-api-key.dto';

@ApiTags('API keys')
@JwtAuth('OWNER', 'ADMIN', 'DEVELOPER')
@Controller('api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Get()
  @ApiOperation({ summary: "List the account's API keys (no secret but a widget-only key's, which is public)" })
  @ApiOkResponse({ type: ApiKeyListDto })
  async list(@CurrentPrincipal() actor: UserPrincipal): Promise<ApiKeyListDto> {
    return { data: await this.apiKeys.list(actor) };
  }

  @Post()
  @ApiOperation({ summary: 'Create an API key; the response shows its secret, once' })
  @ApiCreatedResponse({ type: ApiKeyWithSecretDto })
  @ApiConflictResponse({ type: ErrorResponseDto, description: 'conflict — an active key of the account has this name already' })
  create(@CurrentActor() actor: Actor, @Body() dto: CreateApiKeyDto): Promise<ApiKeyWithSecretDto> {
    return this.apiKeys.create(actor, dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read one API key' })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found' })
  get(@CurrentPrincipal() actor: UserPrincipal, @Param() { id }: IdParamDto): Promise<ApiKeyDto> {
    return this.apiKeys.get(actor, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: "Change a key's name, scopes or allowed origins" })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found' })
  @ApiConflictResponse({
    type: ErrorResponseDto,
    description:
      'conflict — another active key of the account has this name, or a readable widget key cannot gain the verify or public scope',
  })
  update(@CurrentActor() actor: Actor, @Param() { id }: IdParamDto, @Body() dto: UpdateApiKeyDto): Promise<ApiKeyDto> {
    return this.apiKeys.update(actor, id, dto);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke a key for good (idempotent); it stops working at once' })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found' })
  revoke(@CurrentActor() actor: Actor, @Param() { id }: IdParamDto): Promise<ApiKeyDto> {
    return this.apiKeys.revoke(actor, id);
  }

  @Post(':id/rotate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Issue a new secret; the old one works for gracePeriodSeconds, then never' })
  @ApiBody({ type: RotateApiKeyDto, required: false, description: 'Optional: without a body the old secret stops at once.' })
  @ApiOkResponse({ type: ApiKeyWithSecretDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'not_found' })
  rotate(@CurrentActor() actor: Actor, @Param() { id }: IdParamDto, @Body() dto: RotateApiKeyDto): Promise<ApiKeyWithSecretDto> {
    return this.apiKeys.rotate(actor, id, dto.gracePeriodSeconds);
  }
}

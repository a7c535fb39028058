import { PartialType, PickType } from '@nestjs/swagger';
import { CreateApiKeyDto } from './create-api-key.dto';

export class UpdateApiKeyDto extends PartialType(PickType(CreateApiKeyDto, ['name', 'scopes', 'allowedOrigins'] as const)) {}

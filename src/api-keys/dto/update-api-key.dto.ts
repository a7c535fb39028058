import { PartialType, PickType } from '@nestjs/swagger';
import { CreateApiKeyDto } from './create-api-key.dto';

/** Every field optional; null is refused (400), never written. */
export class UpdateApiKeyDto extends PartialType(PickType(CreateApiKeyDto, ['name', 'scopes', 'allowedOrigins'] as const), {
  skipNullProperties: false,
}) {}

import { ApiPropertyOptional, PartialType, PickType } from '@nestjs/swagger';
import { API_KEY_SCOPES, ApiKeyScope } from '../../common/principal';
import { CreateApiKeyDto } from './create-api-key.dto';

/** Every field optional; an absent field keeps its value; null is refused (400), never written. */
export class UpdateApiKeyDto extends PartialType(
  PickType(CreateApiKeyDto, ['name', 'scopes', 'allowedOrigins', 'challengeWaitMs'] as const),
  {
    skipNullProperties: false,
  },
) {
  @ApiPropertyOptional({
    description: 'What the key may call. Absent: unchanged.',
    enum: API_KEY_SCOPES,
    isArray: true,
    maxItems: API_KEY_SCOPES.length,
  })
  declare readonly scopes?: ApiKeyScope[];
}

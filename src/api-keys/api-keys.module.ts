import { Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ApiKeyAuthService } from './api-key-auth.service';
import { ApiKeyUsageTracker } from './api-key-usage.tracker';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';

@Module({
  imports: [WebhooksModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysService, ApiKeyAuthService, ApiKeyUsageTracker],
  exports: [ApiKeyAuthService, ApiKeyUsageTracker],
})
export class ApiKeysModule {}

import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { HealthController } from './health.controller';
import { Lifecycle } from './lifecycle.service';

@Module({ imports: [ApiKeysModule, CredentialsModule, WebhooksModule], controllers: [HealthController], providers: [Lifecycle] })
export class HealthModule {}

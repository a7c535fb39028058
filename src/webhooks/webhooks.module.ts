import { Module } from '@nestjs/common';
import { WebhookDeliverer } from './webhook-deliverer';
import { WebhookEmitter } from './webhook-emitter';
import { WebhookQueue } from './webhook-queue';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Webhook endpoints, the events sent to them and their delivery (docs/WEBHOOKS.md). */
@Module({
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookQueue, WebhookEmitter, WebhookDeliverer],
  exports: [WebhookEmitter, WebhookDeliverer],
})
export class WebhooksModule {}

import { Module } from '@nestjs/common';
import { WidgetModule } from '../widget/widget.module';
import { WebhookDeliverer } from './webhook-deliverer';
import { WebhookEmitter } from './webhook-emitter';
import { WebhookNotices } from './webhook-notices';
import { WebhookQueue } from './webhook-queue';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Webhook endpoints, the events sent to them and their delivery (docs/WEBHOOKS.md). */
@Module({
  imports: [WidgetModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookQueue, WebhookEmitter, WebhookDeliverer, WebhookNotices],
  exports: [WebhookEmitter, WebhookDeliverer],
})
export class WebhooksModule {}

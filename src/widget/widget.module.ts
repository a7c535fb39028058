import { Module } from '@nestjs/common';
import { NoncesModule } from '../nonces/nonces.module';
import { PlansModule } from '../plans/plans.module';
import { ChallengesService } from './challenges.service';
import { SurgeLog } from './surge-log';
import { WidgetController } from './widget.controller';
import { WidgetEffortController } from './widget-effort.controller';

@Module({
  imports: [PlansModule, NoncesModule],
  controllers: [WidgetController, WidgetEffortController],
  providers: [ChallengesService, { provide: SurgeLog, useFactory: () => new SurgeLog() }],
  exports: [ChallengesService, SurgeLog],
})
export class WidgetModule {}

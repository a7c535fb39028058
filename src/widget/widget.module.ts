import { Module } from '@nestjs/common';
import { NoncesModule } from '../nonces/nonces.module';
import { PlansModule } from '../plans/plans.module';
import { ChallengesService } from './challenges.service';
import { WidgetController } from './widget.controller';

@Module({
  imports: [PlansModule, NoncesModule],
  controllers: [WidgetController],
  providers: [ChallengesService],
  exports: [ChallengesService],
})
export class WidgetModule {}

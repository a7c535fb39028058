import { Module } from '@nestjs/common';
import { PlanLimitsService } from './plan-limits.service';
import { PlansController } from './plans.controller';

@Module({
  controllers: [PlansController],
  providers: [PlanLimitsService],
  exports: [PlanLimitsService],
})
export class PlansModule {}

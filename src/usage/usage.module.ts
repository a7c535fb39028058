import { Global, Module } from '@nestjs/common';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsService } from './analytics.service';
import { UsageRecorder } from './usage.recorder';

@Global()
@Module({ controllers: [AnalyticsController], providers: [UsageRecorder, AnalyticsService], exports: [UsageRecorder] })
export class UsageModule {}

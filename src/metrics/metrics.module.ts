import { Global, Module } from '@nestjs/common';
import { Metrics } from './metrics';
import { MetricsServer } from './metrics-server';

@Global()
@Module({ providers: [Metrics, MetricsServer], exports: [Metrics] })
export class MetricsModule {}

import { DynamicModule, Module } from '@nestjs/common';
import { AccountsModule } from './accounts/accounts.module';
import { AuditModule } from './audit/audit.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { CacheModule } from './cache/cache.module';
import { AuthModule } from './auth/auth.module';
import { HttpModule } from './http/http.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { MailModule } from './mail/mailer';
import { HealthModule } from './health/health.module';
import { NoncesModule } from './nonces/nonces.module';
import { PlansModule } from './plans/plans.module';
import { PrismaModule } from './prisma/prisma.module';
import { PublicApiModule } from './public-api/public-api.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { TeamModule } from './team/team.module';
import { UsageModule } from './usage/usage.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WidgetModule } from './widget/widget.module';
import { WidgetScriptModule } from './widget-script/widget-script.module';
import { DashboardModule } from './dashboard/dashboard.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule,
        MetricsModule,
        MailModule,
        PrismaModule,
        CacheModule,
        RateLimitModule,
        AuthModule,
        PlansModule,
        AuditModule,
        AccountsModule,
        TeamModule,
        ApiKeysModule,
        WidgetModule,
        WidgetScriptModule,
        NoncesModule,
        UsageModule,
        PublicApiModule,
        WebhooksModule,
        HealthModule,
        DashboardModule,
        HttpModule,
      ],
    };
  }
}

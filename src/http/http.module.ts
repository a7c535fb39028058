import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AuthModule } from '../auth/auth.module';
import { DashboardModule } from '../dashboard/dashboard.module';
import { AccessGuard } from './access.guard';
import { AppExceptionFilter } from './app-exception.filter';

/** The app-wide guard and exception filter; configureApp (src/app.setup.ts) registers them. */
@Module({
  imports: [ApiKeysModule, AuthModule, DashboardModule],
  providers: [AccessGuard, AppExceptionFilter],
})
export class HttpModule {}

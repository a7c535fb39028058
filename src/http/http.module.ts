import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AccessGuard } from './access.guard';
import { AppExceptionFilter } from './app-exception.filter';

/** The app-wide guard and exception filter; configureApp (src/app.setup.ts) registers them. */
@Module({
  imports: [AuthModule],
  providers: [AccessGuard, AppExceptionFilter],
})
export class HttpModule {}

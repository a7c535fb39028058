import { Module } from '@nestjs/common';
import { PlansModule } from '../plans/plans.module';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { BootstrapOwner } from './bootstrap-owner';
import { SignupController } from './signup.controller';
import { SignupService } from './signup.service';
import { WidgetModule } from '../widget/widget.module';
import { CredentialsModule } from '../credentials/credentials.module';

@Module({
  imports: [PlansModule, WidgetModule, CredentialsModule],
  controllers: [AccountsController, SignupController],
  providers: [AccountsService, BootstrapOwner, SignupService],
})
export class AccountsModule {}

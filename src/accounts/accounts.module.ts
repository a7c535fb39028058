import { Module } from '@nestjs/common';
import { PlansModule } from '../plans/plans.module';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { BootstrapOwner } from './bootstrap-owner';

@Module({ imports: [PlansModule], controllers: [AccountsController], providers: [AccountsService, BootstrapOwner] })
export class AccountsModule {}

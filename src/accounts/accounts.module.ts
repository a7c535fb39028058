import { Module } from '@nestjs/common';
import { BootstrapOwner } from './bootstrap-owner';

@Module({ providers: [BootstrapOwner] })
export class AccountsModule {}

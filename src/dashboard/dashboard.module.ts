import { Module } from '@nestjs/common';
import { DashboardController } from './dashboard.controller';
import { DashboardPage } from './dashboard-page';

@Module({ controllers: [DashboardController], providers: [DashboardPage], exports: [DashboardPage] })
export class DashboardModule {}

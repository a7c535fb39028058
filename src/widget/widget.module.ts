import { Module } from '@nestjs/common';
import { NoncesModule } from '../nonces/nonces.module';
import { PlansModule } from '../plans/plans.module';
import { WidgetController } from './widget.controller';

@Module({ imports: [PlansModule, NoncesModule], controllers: [WidgetController] })
export class WidgetModule {}

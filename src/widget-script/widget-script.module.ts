import { Module } from '@nestjs/common';
import { WidgetScriptController } from './widget-script.controller';
import { WidgetScript } from './widget-script';

@Module({ controllers: [WidgetScriptController], providers: [{ provide: WidgetScript, useFactory: () => new WidgetScript() }] })
export class WidgetScriptModule {}

import { Module } from '@nestjs/common';
import { WidgetScriptController } from './widget-script.controller';
import { BuiltFile } from '../common/built-file';
import { WIDGET_SCRIPT_PATH } from './widget-script';

@Module({ controllers: [WidgetScriptController], providers: [{ provide: BuiltFile, useFactory: () => new BuiltFile(WIDGET_SCRIPT_PATH) }] })
export class WidgetScriptModule {}

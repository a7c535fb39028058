import { Module } from '@nestjs/common';
import { PublicApiController } from './public-api.controller';
import { ServiceConfigController } from './service-config.controller';

@Module({ controllers: [PublicApiController, ServiceConfigController] })
export class PublicApiModule {}

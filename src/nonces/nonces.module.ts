import { Module } from '@nestjs/common';
import { PlansModule } from '../plans/plans.module';
import { NoncesController } from './nonces.controller';
import { NoncesService } from './nonces.service';

@Module({ imports: [PlansModule], controllers: [NoncesController], providers: [NoncesService], exports: [NoncesService] })
export class NoncesModule {}

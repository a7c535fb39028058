import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { InvitationsController, TeamController } from './team.controller';
import { TeamService } from './team.service';

@Module({ imports: [CredentialsModule], controllers: [TeamController, InvitationsController], providers: [TeamService] })
export class TeamModule {}

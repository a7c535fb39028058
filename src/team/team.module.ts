import { Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { CredentialsModule } from '../credentials/credentials.module';
import { InvitationsController, TeamController } from './team.controller';
import { TeamService } from './team.service';

@Module({ imports: [CredentialsModule, WebhooksModule], controllers: [TeamController, InvitationsController], providers: [TeamService] })
export class TeamModule {}

import { Module } from '@nestjs/common';
import { LinksModule } from '../links/links.module';
import { ProjectsModule } from '../projects/projects.module';
import { ConversionsController } from './conversions.controller';
import { ConversionsRepository } from './conversions.repository';
import { ConversionsService } from './conversions.service';

@Module({
  imports: [ProjectsModule, LinksModule],
  controllers: [ConversionsController],
  providers: [ConversionsRepository, ConversionsService],
})
export class ConversionsModule {}

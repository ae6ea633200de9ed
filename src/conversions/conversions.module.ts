import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { EventsModule } from '../events/events.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { LinksModule } from '../links/links.module';
import { ProjectsModule } from '../projects/projects.module';
import { ConversionsController } from './conversions.controller';
import { ConversionsRepository } from './conversions.repository';
import { ConversionsService } from './conversions.service';

/**
 * conversions/new answers any origin (landing pages call it), its refusals too: set here, before
 * ProjectKeyGuard runs, where a handler's @Header would only be applied after the guard let the
 * request through.
 */
function allowAnyOrigin(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  next();
}

@Module({
  imports: [EventsModule, ProjectsModule, LinksModule, RateLimitModule],
  controllers: [ConversionsController],
  providers: [ConversionsRepository, ConversionsService],
  // The retention job deletes old conversion records through it (src/privacy).
  exports: [ConversionsRepository],
})
export class ConversionsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(allowAnyOrigin)
      .forRoutes({ path: 'conversions/new', method: RequestMethod.ALL });
  }
}

import { Module } from '@nestjs/common';
import { ClicksModule } from '../clicks/clicks.module';
import { RedirectCache } from './redirect-cache';
import { RedirectHandler } from './redirect.handler';
import { RedirectsRepository } from './redirects.repository';

/** Short links answered by a plain request listener in front of Express (see app.factory.ts). */
@Module({
  imports: [ClicksModule],
  providers: [RedirectsRepository, RedirectCache, RedirectHandler],
  exports: [RedirectHandler],
})
export class RedirectsModule {}

import { Module } from '@nestjs/common';
import { ClicksModule } from '../clicks/clicks.module';
import { EnrichmentModule } from '../enrichment/enrichment.module';
import { ClickCounts } from './click-counts';
import { ClickCountsRepository } from './click-counts.repository';
import { ControlDecider } from './control-decision';
import { LinkFilter } from './link-filter';
import { NotFoundBrake } from './not-found-brake';
import { PasswordAttempts } from './password-attempts';
import { PasswordGate } from './password-gate';
import { RedirectCache } from './redirect-cache';
import { RedirectHandler } from './redirect.handler';
import { RedirectsRepository } from './redirects.repository';

/**
 * Short links answered by a plain request listener in front of Express (see app.factory.ts), with
 * the link controls it applies (ControlDecider, ClickCounts, PasswordGate; GeoLookup, shared with
 * the click worker, read only when a link's geo is first applied), and the brake on floods of
 * unknown paths (NotFoundBrake).
 */
@Module({
  imports: [ClicksModule, EnrichmentModule],
  providers: [
    RedirectsRepository,
    LinkFilter,
    NotFoundBrake,
    RedirectCache,
    RedirectHandler,
    ClickCounts,
    ClickCountsRepository,
    ControlDecider,
    PasswordAttempts,
    PasswordGate,
  ],
  exports: [RedirectHandler],
})
export class RedirectsModule {}

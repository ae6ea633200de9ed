import { NO_DIMENSIONS } from '../../test/factories/click-dimensions';
import { ClickEnricher, NO_AGENT, clickDimensions } from './click-enricher';
import { GeoLookup } from './geo-lookup';

const CHROME_ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.122 Mobile Safari/537.36';

describe('ClickEnricher', () => {
  // The shipped IPv4 file only: these batches hold no IPv6 address.
  const enricher = new ClickEnricher(new GeoLookup(null));
  const lists = {
    ips: ['81.2.69.142', '10.0.0.7', '::ffff:8.8.8.8'],
    agents: [CHROME_ANDROID, 'curl/8.5.0'],
    referrers: ['https://www.Google.com/search?q=x', 'nonsense', 'http://t.co/abc'],
  };

  beforeAll(() => enricher.ready(lists.ips));

  it('describes each entry of each list, at its index', () => {
    const described = enricher.describe(lists);
    expect(described.places).toEqual([
      { country: 'GB', region: 'England', city: 'London' },
      null,
      expect.objectContaining({ country: 'US' }),
    ]);
    expect(described.agents).toEqual([
      { device: 'mobile', browser: 'Chrome', os: 'Android' },
      NO_AGENT,
    ]);
    expect(described.referrers).toEqual(['google.com', null, 't.co']);
  });

  it('describes empty lists', () => {
    expect(enricher.describe({ ips: [], agents: [], referrers: [] })).toEqual({
      places: [],
      agents: [],
      referrers: [],
    });
  });
});

describe('clickDimensions', () => {
  it("puts a click's place, agent and referring host together", () => {
    expect(
      clickDimensions(
        { country: 'GB', region: 'England', city: 'London' },
        { device: 'desktop', browser: 'Firefox', os: 'Linux' },
        'news.example.org',
      ),
    ).toEqual({
      country: 'GB',
      region: 'England',
      city: 'London',
      device: 'desktop',
      browser: 'Firefox',
      os: 'Linux',
      referrer_host: 'news.example.org',
    });
  });

  it('has nulls for a click without place, agent or referrer', () => {
    expect(clickDimensions(null, NO_AGENT, null)).toEqual(NO_DIMENSIONS);
  });
});

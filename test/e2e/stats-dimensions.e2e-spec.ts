import { TestApp, createTestApp } from '../support/app';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { GOOGLEBOT, storedClicks, waitForClicks } from '../support/clicks';

/**
 * Click dimensions (docs/api.md, "Click dimensions"): clicks through X-Forwarded-For (TRUST_PROXY)
 * from several countries and devices are described as they are written, then range, totals, range
 * intervals and link intervals group, pivot and filter by them, with counts that add up.
 */

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1';
const CHROME_ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36';
const SAFARI_IPAD =
  'Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1';

const US = '8.8.8.8';
const GB = '81.2.69.142';
const AU = '1.1.1.1';
const DE6 = '2a00:1450:4001:80b::200e';
const PRIVATE = '10.1.2.3';

describe('click dimensions', () => {
  let t: TestApp;
  let key: string;
  let email: { svc_id: string; path: string };
  let sms: { svc_id: string; path: string };
  const start_date = new Date(Date.now() - 86_400_000).toISOString();
  const end_date = new Date(Date.now() + 3_600_000).toISOString();

  const visit = (path: string, ip: string, ua: string, referer?: string) => {
    const req = t.http
      .get(`/${path}`)
      .set('Host', 'svc.test')
      .set('X-Forwarded-For', `${ip}, 10.0.0.1`)
      .set('User-Agent', ua);
    return (referer ? req.set('Referer', referer) : req).expect(302);
  };

  beforeAll(async () => {
    // Two proxies: the test's connection and 10.0.0.1, the visitor's address left of it.
    t = await createTestApp({ env: { TRUST_PROXY: '2' } });
    key = (await createProject(t, { conversions: { enabled: true, domains: 'all' } })).api_key;
    email = await createLink(t, key, { channel: 'email' });
    sms = await createLink(t, key, { channel: 'sms' });
    // email: US desktop ×3 (two from Google), GB iPhone ×2, DE (IPv6) Android ×1.
    // sms: AU iPad ×2 (one from t.co), private address desktop ×1, and a bot from the US.
    await visit(email.path, US, CHROME_WINDOWS, 'https://www.Google.com/search?q=x');
    await visit(email.path, US, CHROME_WINDOWS, 'https://www.google.com/');
    await visit(email.path, US, CHROME_WINDOWS);
    await visit(email.path, GB, SAFARI_IPHONE);
    await visit(email.path, GB, SAFARI_IPHONE);
    await visit(email.path, DE6, CHROME_ANDROID);
    await visit(sms.path, AU, SAFARI_IPAD, 'http://t.co/abc');
    await visit(sms.path, AU, SAFARI_IPAD);
    await visit(sms.path, PRIVATE, CHROME_WINDOWS);
    await visit(sms.path, US, GOOGLEBOT);
    await waitForClicks(t, {
      [email.svc_id]: { clicks: 6, bots: 0 },
      [sms.svc_id]: { clicks: 3, bots: 1 },
    });
  });
  afterAll(() => t.close());

  const get = (path: string, query: Record<string, string>) =>
    t.http.get(path).query({ v: '3', key, start_date, end_date, ...query });
  const range = (query: Record<string, string>) => get('/stats/range.json', query).expect(200);
  const totals = (query: Record<string, string>) => get('/stats/totals.json', query).expect(200);
  type Group = Record<string, unknown> & { clicks: number; pivots?: Group[] };
  const byValue = (groups: Group[], field: string) =>
    Object.fromEntries(groups.map((g) => [String(g[field]), g.clicks]));

  it('stores each click with its place, device, browser, OS and referring host; the address only as CLICK_IP says', async () => {
    const rows = await t.analytics.query<Record<string, string | null>>(
      `SELECT ip, country, region, city, device, browser, os, referrer_host, enriched
       FROM ${t.analytics.database}.clicks WHERE user_agent = {ua:String} AND referrer_host IS NOT NULL`,
      { ua: CHROME_WINDOWS },
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({
        ip: '8.8.8.0',
        country: 'US',
        device: 'desktop',
        browser: 'Chrome',
        os: 'Windows',
        referrer_host: 'google.com',
        enriched: 1,
      });
      expect(row.region).toEqual(expect.any(String));
      expect(row.city).toEqual(expect.any(String));
    }
    const raw = await storedClicks(t);
    expect(raw.every((c) => c.ip === null || /\.0$|::$/.test(c.ip))).toBe(true);
  });

  it('range groups by country: the counts add up to the clicks, shares are null, unknown places group as null', async () => {
    const res = await range({ group_by: 'country' });
    expect(res.body.totals).toEqual({ clicks: 9, shares: null, clicks_per_share: null });
    expect(byValue(res.body.groups, 'country')).toEqual({ US: 3, GB: 2, AU: 2, DE: 1, null: 1 });
    expect(res.body.groups[0]).toEqual({
      country: 'US',
      clicks: 3,
      shares: null,
      clicks_per_share: null,
    });
    expect(res.body.total_results).toBe(5);
  });

  it('range groups by country with a pivot by device, sorted and paged like any group', async () => {
    const res = await range({
      group_by: 'country',
      pivot: 'device',
      sort_type: 'alpha',
      sort_order: 'asc',
      per_page: '2',
    });
    expect((res.body.groups as Group[]).map((g) => g.country)).toEqual(['AU', 'DE']);
    expect(res.body.groups[0].pivots).toEqual([
      { device: 'tablet', clicks: 2, shares: null, clicks_per_share: null },
    ]);
    expect(res.body.groups[1].pivots).toEqual([
      { device: 'mobile', clicks: 1, shares: null, clicks_per_share: null },
    ]);
    expect(res.body.total_results).toBe(5);
    const next = await range({
      group_by: 'country',
      pivot: 'device',
      sort_type: 'alpha',
      sort_order: 'asc',
      per_page: '2',
      offset: String(res.body.last_offset),
    });
    expect((next.body.groups as Group[]).map((g) => g.country)).toEqual(['GB', 'US']);
  });

  it('groups by device, browser, OS, region, city and referring host', async () => {
    expect(byValue((await range({ group_by: 'device' })).body.groups, 'device')).toEqual({
      desktop: 4,
      mobile: 3,
      tablet: 2,
    });
    expect(byValue((await range({ group_by: 'browser' })).body.groups, 'browser')).toEqual({
      Chrome: 5,
      Safari: 4,
    });
    expect(byValue((await range({ group_by: 'os' })).body.groups, 'os')).toEqual({
      Windows: 4,
      iOS: 4,
      Android: 1,
    });
    expect(
      byValue((await range({ group_by: 'referrer_host' })).body.groups, 'referrer_host'),
    ).toEqual({ 'google.com': 2, 't.co': 1, null: 6 });
    const regions = (await range({ group_by: 'region' })).body.groups as Group[];
    expect(regions.reduce((sum, g) => sum + g.clicks, 0)).toBe(9);
    const cities = (await range({ group_by: 'city' })).body;
    expect((cities.groups as Group[]).reduce((sum, g) => sum + g.clicks, 0)).toBe(9);
    expect((cities.groups as Group[]).find((g) => g.city === null)?.clicks).toBe(1);
  });

  it('mixes link fields and click dimensions: group by channel, pivot by country; filter by a dimension', async () => {
    const res = await range({ group_by: 'channel', pivot: 'country', sort_type: 'alpha' });
    const groups = Object.fromEntries(
      (res.body.groups as Group[]).map((g) => [g.channel, byValue(g.pivots!, 'country')]),
    );
    expect(groups).toEqual({ email: { US: 3, GB: 2, DE: 1 }, sms: { AU: 2, null: 1 } });
    const filtered = await range({ group_by: 'channel', country: 'us' });
    expect(byValue(filtered.body.groups, 'channel')).toEqual({ email: 3 });
    expect(filtered.body.filters).toEqual({ country: 'US', country_metadata: null });
    expect(filtered.body.totals).toEqual({ clicks: 3, shares: null, clicks_per_share: null });
    const device = await range({ group_by: 'country', device: 'tablet' });
    expect(byValue(device.body.groups, 'country')).toEqual({ AU: 2 });
    const linkFiltered = await range({ group_by: 'os', channel: 'email' });
    expect(byValue(linkFiltered.body.groups, 'os')).toEqual({ Windows: 3, iOS: 2, Android: 1 });
  });

  it('counts bots by their dimensions only with with_bots=true', async () => {
    const withBots = await range({ group_by: 'device', with_bots: 'true' });
    expect(byValue(withBots.body.groups, 'device')).toEqual({
      desktop: 4,
      mobile: 3,
      tablet: 2,
      other: 1,
    });
  });

  it('totals group, pivot and filter by click dimensions over the links shared in the period', async () => {
    const res = await totals({ group_by: 'country', pivot: 'browser', sort_type: 'alpha' });
    expect(res.body.totals).toEqual({ clicks: 9, shares: null, clicks_per_share: null });
    const us = (res.body.groups as Group[]).find((g) => g.country === 'US')!;
    expect(byValue(us.pivots!, 'browser')).toEqual({ Chrome: 3 });
    const mobile = await totals({ group_by: 'channel', device: 'mobile' });
    expect(byValue(mobile.body.groups, 'channel')).toEqual({ email: 3 });
    const multi = await totals({ group_by: 'device', browser: 'Safari' });
    expect(byValue(multi.body.groups, 'device')).toEqual({ mobile: 2, tablet: 2 });
  });

  it('range intervals and link intervals filter by click dimensions; shares are then null', async () => {
    const all = await get('/stats/range/intervals.json', { interval: 'day' }).expect(200);
    expect(all.body.totals.shares).toBe(2);
    const gb = await get('/stats/range/intervals.json', { interval: 'day', country: 'GB' }).expect(
      200,
    );
    expect(gb.body.totals.clicks).toBe(2);
    expect(gb.body.totals.shares).toBeNull();
    const intervals = gb.body.totals.intervals as { shares: unknown }[];
    expect(intervals.every((i) => i.shares === null)).toBe(true);
    expect(gb.body.filters).toEqual({ country: 'GB', country_metadata: null });
    const link = await get(`/stats/${email.svc_id}/intervals.json`, {
      interval: 'day',
      os: 'iOS',
    }).expect(200);
    expect(link.body.clicks).toBe(2);
    const unfiltered = await get(`/stats/${email.svc_id}/intervals.json`, {
      interval: 'day',
    }).expect(200);
    expect(unfiltered.body.clicks).toBe(6);
  });

  it('groups conversions by the dimensions of the click that led to them', async () => {
    await t.http
      .get('/conversions/new')
      .query({
        key,
        svc_url: email.svc_id,
        conversion_type: 'goal_1',
        conversion_value: '500',
        ip: GB,
        user_agent: SAFARI_IPHONE,
      })
      .expect(200);
    const res = await range({ group_by: 'country', with_conversions: 'true' });
    const gb = (res.body.groups as Group[]).find((g) => g.country === 'GB')!;
    expect(gb.conversions).toMatchObject({ goal_1: { count: 1, value: 500 } });
    const us = (res.body.groups as Group[]).find((g) => g.country === 'US')!;
    expect(us.conversions).toMatchObject({ goal_1: { count: 0, value: 0 } });
  });

  it('refuses bad values with a 400 naming the parameter', async () => {
    const bad = async (query: Record<string, string>, name: string) => {
      const res = await get('/stats/range.json', query).expect(400);
      expect(res.body.error_message).toContain(name);
    };
    await bad({ country: 'USA' }, 'country');
    await bad({ country: '1A' }, 'country');
    await bad({ device: 'phone' }, 'device');
    await bad({ group_by: 'country', sort_type: 'shares' }, 'sort_type');
    await bad(
      { group_by: 'channel', pivot: 'device', pivot_sort_type: 'clicks_per_share' },
      'pivot_sort_type',
    );
    await bad({ group_by: 'channel', pivot: 'country', country: 'US' }, 'pivot');
    const link = await get(`/stats/${email.svc_id}/intervals.json`, { device: 'watch' }).expect(
      400,
    );
    expect(link.body.error_message).toContain('device');
  });
});

describe('click dimensions with CLICK_IP=none', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: 'true', CLICK_IP: 'none' }, redis: false });
  });
  afterAll(() => t.close());

  it('places the click from the address, then stores no address', async () => {
    const key = (await createProject(t)).api_key;
    const link = await createLink(t, key);
    await t.http
      .get(`/${link.path}`)
      .set('Host', 'svc.test')
      .set('X-Forwarded-For', GB)
      .set('User-Agent', SAFARI_IPHONE)
      .expect(302);
    await waitForClicks(t, { [link.svc_id]: { clicks: 1, bots: 0 } });
    const rows = await t.analytics.query<Record<string, string | null>>(
      `SELECT ip, country, city, device, os FROM ${t.analytics.database}.clicks`,
    );
    expect(rows).toEqual([
      { ip: null, country: 'GB', city: 'London', device: 'mobile', os: 'iOS' },
    ]);
  });
});

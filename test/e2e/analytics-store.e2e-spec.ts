import { AnalyticsUnavailableError } from '../../src/analytics/analytics-client';
import { ClickEvent, nextClickSequence, packClicks } from '../../src/clicks/click-event';
import { ClicksService } from '../../src/clicks/clicks.service';
import { TestApp, createTestApp } from '../support/app';
import {
  BROWSER,
  clickCounts,
  clicksOf,
  linkRow,
  stored,
  storedClicks,
  waitForClicks,
} from '../support/clicks';
import { eventually } from '../support/eventually';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/**
 * The analytics store (embedded ClickHouse): links are in the statistics as soon as the API call
 * that wrote them returns, and every click is counted once whatever way its batch comes again.
 */
describe('analytics store', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const range = async (query: Record<string, string>) =>
    (
      await t.http
        .get('/stats/range.json')
        .query({ v: '3', key, ...query })
        .expect(200)
    ).body as {
      totals: { shares: number };
      groups: { channel: string; shares: number }[];
    };

  it('counts a link created, batched or updated through the API in range and totals as soon as the call returns', async () => {
    const period = {
      start_date: new Date(Date.now() - 3_600_000).toISOString(),
      end_date: new Date(Date.now() + 3_600_000).toISOString(),
    };
    const before = (await range(period)).totals.shares;
    const link = await createLink(t, key, { channel: 'twitter' });
    expect((await range(period)).totals.shares).toBe(before + 1);
    await t.http
      .get('/url/batch.json')
      .query(
        `v=3&key=${key}&tool=t&channel=sms&url[]=https://example.com/1&url[]=https://example.com/2`,
      )
      .expect(200);
    const grouped = await range({ ...period, group_by: 'channel' });
    expect(grouped.totals.shares).toBe(before + 3);
    expect(grouped.groups.find((g) => g.channel === 'sms')?.shares).toBe(2);
    // An update of the link's metadata shows in every statistic at once (the latest version is joined).
    await t.http
      .get(`/url/update/${link.svc_id}.json`)
      .query({ v: '3', key, tool: 't', channel: 'email' })
      .expect(200);
    const after = await range({ ...period, group_by: 'channel' });
    expect(after.groups.find((g) => g.channel === 'email')?.shares).toBe(1);
    expect(after.groups.find((g) => g.channel === 'twitter')).toBeUndefined();
    const totals = await t.http
      .get('/stats/totals.json')
      .query({ v: '3', key, ...period, group_by: 'channel' })
      .expect(200);
    expect(totals.body.total_results).toBe(after.groups.length);
  });

  it('stores a live batch once when its job runs again, in turn or at once (deduplication token)', async () => {
    const link = await createLink(t, key);
    const row = await linkRow(t, link.svc_id);
    const service = t.app.get(ClicksService, { strict: false });
    // As the redirect records them: sequence numbers of this process, packed as the queue carries them.
    const clicks: ClickEvent[] = clicksOf(row, 4, 1).map((c) => ({
      ...c,
      id: nextClickSequence(),
    }));
    const job = JSON.parse(JSON.stringify(packClicks(clicks)));
    await service.ingest(job);
    await service.ingest(job);
    await Promise.all([service.ingest(job), service.ingest(job)]);
    expect(await clickCounts(t, [link.svc_id])).toEqual(
      stored({ [link.svc_id]: { clicks: 4, bots: 1 } }),
    );
    // A retried job (resent) that meets its clicks stored adds none.
    expect(await service.ingest(job, { resent: true })).toBe(0);
    expect((await storedClicks(t, row.linkId)).length).toBe(5);
  });

  it('stores referrers, user agents and IPs exactly as given, whatever their bytes (TabSeparated rows), live and resent', async () => {
    const link = await createLink(t, key);
    const row = await linkRow(t, link.svc_id);
    const service = t.app.get(ClicksService, { strict: false });
    const values = [
      'tab\there',
      'line\nfeed\r\nand CR',
      'back\\slash \\t \\N',
      '\\N',
      'nul\u0000byte',
      'ünïcødé ✓ 🔗',
      '',
      'quote \' and "',
    ];
    const at = Date.now();
    const clicks: ClickEvent[] = values.map((value, i) => ({
      ...clicksOf(row, 1, 0, at - i)[0],
      referrer: value,
      userAgent: values[(i + 1) % values.length],
      ip: i % 2 === 0 ? null : value,
    }));
    const [live, resent] = [clicks.slice(0, 4), clicks.slice(4)];
    // Live: as the redirect records them (sequence numbers: the shared blocks); resent: ids in full.
    expect(
      await service.ingest(
        JSON.parse(
          JSON.stringify(packClicks(live.map((c) => ({ ...c, id: nextClickSequence() })))),
        ),
      ),
    ).toBe(4);
    expect(await service.ingest(resent, { resent: true })).toBe(4);
    const found = await storedClicks(t, row.linkId);
    const sorted = (
      rows: { referrer: string | null; user_agent: string | null; ip: string | null }[],
    ) => rows.map((r) => JSON.stringify([r.referrer, r.user_agent, r.ip])).sort();
    expect(sorted(found)).toEqual(
      sorted(clicks.map((c) => ({ referrer: c.referrer, user_agent: c.userAgent, ip: c.ip }))),
    );
  });

  it('stores each click of a batch that overlaps stored ones once (spool, another process)', async () => {
    const link = await createLink(t, key);
    const row = await linkRow(t, link.svc_id);
    const service = t.app.get(ClicksService, { strict: false });
    const first = clicksOf(row, 3);
    expect(await service.ingest(first)).toBe(3);
    const overlapping = [first[1], ...clicksOf(row, 2), first[2]];
    expect(await service.ingest(overlapping)).toBe(2);
    expect(await clickCounts(t, [link.svc_id])).toEqual(
      stored({ [link.svc_id]: { clicks: 5, bots: 0 } }),
    );
  });

  it('records a conversion event once and sums it in the statistics', async () => {
    const project = await createProject(t, { conversions: { enabled: true, domains: 'all' } });
    const link = await createLink(t, project.api_key);
    const convert = () =>
      t.http
        .get('/conversions/new')
        .query({
          key: project.api_key,
          svc_url: link.svc_id,
          conversion_type: 'goal_1',
          conversion_value: '250',
          account_conversion_id: 'order-9',
        })
        .expect(200);
    await convert();
    await convert();
    const events = await t.analytics.query<{ n: string; value: string }>(
      `SELECT count() AS n, sum(value) AS value FROM ${t.analytics.database}.conversions WHERE project_id = {p:UUID}`,
      { p: (await linkRow(t, link.svc_id)).projectId },
    );
    expect(events.map((e) => [Number(e.n), Number(e.value)])).toEqual([[1, 250]]);
    const totals = await t.http
      .get('/stats/totals.json')
      .query({ v: '3', key: project.api_key, with_conversions: 'true' })
      .expect(200);
    expect(totals.body.totals.conversions.goal_1).toEqual({ count: 1, value: 250, label: null });
  });
});

/**
 * The analytics store out of reach, as the transport reports it (AnalyticsUnavailableError: its
 * test on a real ClickHouse server, clickhouse-server.e2e-spec.ts, shows a refused connection
 * becomes one): redirects answer, statistics answer 503, click jobs retry, nothing is lost.
 */
describe.each([
  ['BullMQ on Redis', true],
  ['in-process jobs', false],
])('analytics store outage (%s)', (_label, redis) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ redis });
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  it('keeps redirecting, answers statistics 503 naming the store, retries the click jobs and counts each click once', async () => {
    const link = await createLink(t, key);
    const down = () =>
      Promise.reject(
        new AnalyticsUnavailableError(new Error('connect ECONNREFUSED 127.0.0.1:8123')),
      );
    const inserts = [
      jest.spyOn(t.analytics, 'insert').mockImplementation(down),
      jest.spyOn(t.analytics, 'insertTabSeparated').mockImplementation(down),
    ];
    const query = jest.spyOn(t.analytics, 'query').mockImplementation(down);
    const ingest = jest.spyOn(t.app.get(ClicksService, { strict: false }), 'ingest');
    const visits = [];
    for (let i = 0; i < 3; i++)
      visits.push(
        (await t.http.get(`/${link.path}`).set('Host', 'svc.test').set('User-Agent', BROWSER))
          .status,
      );
    expect(visits).toEqual([302, 302, 302]);
    const stats = await t.http.get('/stats/range.json').query({ v: '3', key });
    expect([stats.status, stats.headers['retry-after']]).toEqual([503, '5']);
    expect(stats.body).toEqual({
      error: 503,
      error_message: expect.stringMatching(
        /^Statistics are temporarily unavailable: the analytics store does not answer \(connect ECONNREFUSED/,
      ),
    });
    await eventually('a click job retried', () => ingest.mock.calls.length >= 2, 15_000);
    await expect(ingest.mock.results[0].value).rejects.toThrow(AnalyticsUnavailableError);
    for (const insert of inserts) insert.mockRestore();
    query.mockRestore();
    expect(await waitForClicks(t, { [link.svc_id]: { clicks: 3, bots: 0 } }, 20_000)).toEqual(
      stored({ [link.svc_id]: { clicks: 3, bots: 0 } }),
    );
    await t.settle();
    expect(await clickCounts(t, [link.svc_id])).toEqual(
      stored({ [link.svc_id]: { clicks: 3, bots: 0 } }),
    );
  });
});

import { clickRollup, setCreatedAt } from '../factories/stats';
import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';

/**
 * The limits every statistics statement carries (docs/api.md, "Statistics limits"): with limits
 * too small for any statement, set by the environment as an operator would, a request answers
 * what the documentation says, in the endpoint's error shape, and never a 500.
 */

const PERIOD = { start_date: '2026-11-01', end_date: '2026-11-08' };

/** An app with these limits, a project and a link with clicks; its key and the link's id. */
async function appWithClicks(
  env: Record<string, string>,
): Promise<{ t: TestApp; key: string; svcId: string }> {
  const t = await createTestApp({ env });
  const key = (await createProject(t)).api_key;
  const res = await t.http
    .get('/url.json')
    .query({ v: '3', key, tool: 't', channel: 'twitter', url: 'https://example.com/' })
    .expect(200);
  const svcId = (res.body as { svc_id: string }).svc_id;
  await setCreatedAt(t, svcId, '2026-11-02T10:00:00Z');
  await clickRollup(t, svcId, '2026-11-02T11:30:00Z', 4, 1);
  return { t, key, svcId };
}

describe('statistics past the memory limit (ANALYTICS_MAX_MEMORY_MB): 400 naming what to narrow', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    ({ t, key } = await appWithClicks({ ANALYTICS_MAX_MEMORY_MB: '0.000001' }));
  });
  afterAll(() => t.close());

  const TOO_LARGE =
    'Statistics query too large: it needs more than the 0.000001 MB the analytics store allows one; narrow start_date/end_date, group_by or pivot, or add filters';

  // The engine counts a statement's memory in chunks (docs/operations.md, "Statistics limits"): a
  // read of one link's few clicks may end before it counts any, so these aggregate a project's.
  it('range, totals and range intervals answer 400 {error, error_message}, without Retry-After', async () => {
    const requests: [string, Record<string, string>][] = [
      ['/stats/range.json', { ...PERIOD, group_by: 'channel' }],
      ['/stats/range.json', PERIOD],
      ['/stats/totals.json', { ...PERIOD, group_by: 'channel', pivot: 'tool' }],
      ['/stats/range/intervals.json', { ...PERIOD, interval: 'day' }],
    ];
    for (const [path, query] of requests) {
      const res = await t.http.get(path).query({ v: '3', key, ...query });
      expect([path, res.status, res.body]).toEqual([
        path,
        400,
        { error: 400, error_message: TOO_LARGE },
      ]);
      expect(res.headers['retry-after']).toBeUndefined();
    }
  });

  it('url/list sorted by clicks answers 400 in its shape too; txt answers the message', async () => {
    const json = await t.http.get('/url/list.json').query({ v: '3', key, sort_type: 'clicks' });
    expect([json.status, json.body]).toEqual([400, { error: 400, error_message: TOO_LARGE }]);
    const txt = await t.http.get('/url/list.txt').query({ v: '3', key, sort_type: 'clicks' });
    expect([txt.status, txt.text]).toEqual([400, TOO_LARGE]);
  });
});

describe('statistics past the time limit (ANALYTICS_MAX_EXECUTION_SECONDS): 503 with Retry-After', () => {
  let t: TestApp;
  let key: string;
  let svcId: string;
  beforeAll(async () => {
    ({ t, key, svcId } = await appWithClicks({ ANALYTICS_MAX_EXECUTION_SECONDS: '0.000001' }));
  });
  afterAll(() => t.close());

  const TIMED_OUT =
    'Statistics are temporarily unavailable: the query ran past the 0.000001 s the analytics store allows one; retry shortly, or narrow start_date/end_date';

  it('range, totals, intervals, link details, chain.json and url/list answer 503 with Retry-After', async () => {
    const requests: [string, Record<string, string>][] = [
      ['/stats/range.json', { ...PERIOD, group_by: 'channel' }],
      ['/stats/totals.json', { ...PERIOD, group_by: 'channel', pivot: 'tool' }],
      ['/stats/range/intervals.json', { ...PERIOD, interval: 'day' }],
      [`/stats/${svcId}/intervals.json`, { ...PERIOD, interval: 'day' }],
      [`/stats/${svcId}.json`, {}],
      [`/stats/${svcId}/chain.json`, {}],
      ['/url/list.json', { sort_type: 'clicks' }],
    ];
    for (const [path, query] of requests) {
      const res = await t.http.get(path).query({ v: '3', key, ...query });
      expect([path, res.status, res.headers['retry-after'], res.body]).toEqual([
        path,
        503,
        '5',
        { error: 503, error_message: TIMED_OUT },
      ]);
    }
  });
});

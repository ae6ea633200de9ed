import { DataSource } from 'typeorm';
import { ClickBuffer } from '../../src/clicks/click-buffer';
import type { LinkRecord } from '../../src/links/link-record';
import { JobQueue } from '../../src/queue/job-queue';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { StatsFixture, buildStatsFixture } from '../factories/stats';
import { TestApp, createTestApp } from '../support/app';
import { EmbeddedApp, startEmbeddedApp } from '../support/embedded-app';
import { BROWSER, GOOGLEBOT, waitForClicks } from '../support/clicks';

type Listed = LinkRecord & { clicks: number };
interface ListBody {
  links: Listed[];
  total_results: number;
  page: number | null;
  per_page: number;
  offset: number;
  last_offset: number;
}

/**
 * url/list.{format} (extension; docs/api.md, "Listing links"): a project's links with their
 * all-time clicks, filtered as statistics filter, searched, sorted and paged.
 *
 * The statistics fixture (test/factories/stats.ts) is one project: links E (created 11-06), C
 * (11-05), B (11-03), A (11-02), D (10-20), with all-time human clicks A 10, D 5, C 3, B 1, E 0
 * (bots besides). A second project makes its links and clicks through the API and redirects.
 */
describe('url/list.json', () => {
  let t: TestApp;
  let f: StatsFixture;
  let ids: StatsFixture['ids'];
  let key2: string;
  const s: Record<'S1' | 'S2' | 'S3' | 'S4', Listed> = {} as never;

  beforeAll(async () => {
    t = await createTestApp();
    f = await buildStatsFixture(t);
    ids = f.ids;
    key2 = (await createProject(t)).api_key;
    // Tool web-form, channel twitter unless given; `query`: a raw query string (tag_3[]=…).
    const make = async (params: Record<string, string>, query = '') => {
      const res = await t.http
        .get(`/url.json${query ? `?${query}` : ''}`)
        .query({ v: '3', key: key2, tool: 'web-form', channel: 'twitter', ...params })
        .expect(200);
      return res.body as LinkRecord;
    };
    s.S1 = {
      ...(await make({
        url: 'https://shop.example.com/widgets/Blue-Widget',
        notes: 'Launch post for the spring',
        tag: 'promo',
        campaign: 'Summer Deals',
        campaign_description: 'Summer',
      })),
      clicks: 3,
    };
    s.S2 = {
      ...(await make({
        url: 'https://blog.example.com/2026/hello-world',
        notes: 'Weekly digest',
        tag: 'newsletter',
        channel: 'email',
      })),
      clicks: 1,
    };
    s.S3 = {
      ...(await make({ url: 'https://example.org/widget_guide', tag: 'promo' })),
      clicks: 0,
    };
    s.S4 = {
      ...(await make(
        { url: 'https://example.net/x?q=100%25', notes: 'Blue moon' },
        'tag_3[]=a&tag_3[]=b',
      )),
      clicks: 1,
    };
    // Clicks through redirects: S1 three, S2 one, S4 one and a crawler's (not counted).
    const visit = (link: LinkRecord, ua = BROWSER) =>
      t.http.get(`/${link.path}`).set('Host', link.domain).set('User-Agent', ua).expect(302);
    for (const [link, ua] of [
      [s.S1, BROWSER],
      [s.S1, BROWSER],
      [s.S1, BROWSER],
      [s.S2, BROWSER],
      [s.S4, BROWSER],
      [s.S4, GOOGLEBOT],
    ] as const)
      await visit(link, ua);
    await t.settle();
    const expected = {
      [s.S1.svc_id]: { clicks: 3, bots: 0 },
      [s.S2.svc_id]: { clicks: 1, bots: 0 },
      [s.S4.svc_id]: { clicks: 1, bots: 1 },
    };
    expect(await waitForClicks(t, expected)).toEqual({
      [s.S1.svc_id]: { clicks: 3, bots: 0, raw: 3 },
      [s.S2.svc_id]: { clicks: 1, bots: 0, raw: 1 },
      [s.S4.svc_id]: { clicks: 1, bots: 1, raw: 2 },
    });
  });
  afterAll(() => t.close());

  const list = (params: Record<string, string> = {}, key = f.key) =>
    t.http.get('/url/list.json').query({ v: '3', key, ...params });
  const body = async (params: Record<string, string> = {}, key = f.key): Promise<ListBody> =>
    (await list(params, key).expect(200)).body as ListBody;
  const svcIds = (answer: ListBody) => answer.links.map((link) => link.svc_id);
  const refused = async (params: Record<string, string>, message: string, key = f.key) => {
    const res = await list(params, key).expect(400);
    expect(res.body).toEqual({ error: 400, error_message: message });
  };

  describe('order and paging', () => {
    it('lists the project’s links newest first, with total_results and the paging echo', async () => {
      const answer = await body();
      expect(svcIds(answer)).toEqual([ids.E, ids.C, ids.B, ids.A, ids.D]);
      expect({ ...answer, links: undefined }).toEqual({
        links: undefined,
        total_results: 5,
        page: 1,
        per_page: 10,
        offset: 0,
        last_offset: 5,
      });
    });

    it('oldest first with sort_order=asc (in any case)', async () => {
      expect(svcIds(await body({ sort_order: 'ASC' }))).toEqual([
        ids.D,
        ids.A,
        ids.B,
        ids.C,
        ids.E,
      ]);
    });

    it('pages by page and per_page', async () => {
      const first = await body({ per_page: '2' });
      expect(svcIds(first)).toEqual([ids.E, ids.C]);
      expect(first).toMatchObject({
        total_results: 5,
        page: 1,
        per_page: 2,
        offset: 0,
        last_offset: 2,
      });
      const third = await body({ per_page: '2', page: '3' });
      expect(svcIds(third)).toEqual([ids.D]);
      expect(third).toMatchObject({
        total_results: 5,
        page: 3,
        per_page: 2,
        offset: 4,
        last_offset: 5,
      });
      const beyond = await body({ per_page: '2', page: '4' });
      expect(beyond).toEqual({
        links: [],
        total_results: 5,
        page: 4,
        per_page: 2,
        offset: 6,
        last_offset: 6,
      });
    });

    it('offset overrides page: page is null, last_offset is the next offset', async () => {
      const answer = await body({ per_page: '2', page: '3', offset: '1' });
      expect(svcIds(answer)).toEqual([ids.C, ids.B]);
      expect(answer).toMatchObject({
        total_results: 5,
        page: null,
        per_page: 2,
        offset: 1,
        last_offset: 3,
      });
      const next = await body({ per_page: '2', offset: String(answer.last_offset) });
      expect(svcIds(next)).toEqual([ids.A, ids.D]);
    });

    it('lists each link as the link endpoints record it, with its all-time human clicks', async () => {
      const answer = await body({}, key2);
      expect(answer.links).toEqual([s.S4, s.S3, s.S2, s.S1]);
      expect(answer.total_results).toBe(4);
      const fixture = await body();
      expect(Object.fromEntries(fixture.links.map((l) => [l.svc_id, l.clicks]))).toEqual({
        [ids.A]: 10,
        [ids.B]: 1,
        [ids.C]: 3,
        [ids.D]: 5,
        [ids.E]: 0,
      });
    });

    it('lists a link as soon as its creation answered', async () => {
      const key = (await createProject(t)).api_key;
      const link = await createLink(t, key, { url: 'https://example.com/fresh' });
      expect(await body({}, key)).toEqual({
        links: [{ ...link, clicks: 0 }],
        total_results: 1,
        page: 1,
        per_page: 10,
        offset: 0,
        last_offset: 1,
      });
    });
  });

  describe('sort_type=clicks', () => {
    it('most clicked first; links without clicks count 0; ties by link id, newest first', async () => {
      const answer = await body({ sort_type: 'clicks' });
      expect(answer.links.map((l) => [l.svc_id, l.clicks])).toEqual([
        [ids.A, 10],
        [ids.D, 5],
        [ids.C, 3],
        [ids.B, 1],
        [ids.E, 0],
      ]);
      expect(answer.total_results).toBe(5);
      // S2 and S4 have one click each (S4 a crawler's besides): S4, made later, first.
      expect(svcIds(await body({ sort_type: 'clicks' }, key2))).toEqual([
        s.S1.svc_id,
        s.S4.svc_id,
        s.S2.svc_id,
        s.S3.svc_id,
      ]);
    });

    it('least clicked first with sort_order=asc, ties by link id, oldest first', async () => {
      expect(svcIds(await body({ sort_type: 'clicks', sort_order: 'asc' }))).toEqual([
        ids.E,
        ids.B,
        ids.C,
        ids.D,
        ids.A,
      ]);
      expect(svcIds(await body({ sort_type: 'clicks', sort_order: 'asc' }, key2))).toEqual([
        s.S3.svc_id,
        s.S2.svc_id,
        s.S4.svc_id,
        s.S1.svc_id,
      ]);
    });

    it('pages through the order, filtered', async () => {
      const answer = await body({ sort_type: 'clicks', per_page: '2', page: '2' });
      expect(svcIds(answer)).toEqual([ids.C, ids.B]);
      expect(answer).toMatchObject({ total_results: 5, page: 2, offset: 2, last_offset: 4 });
      // Past the links with clicks (E has none), and past the end.
      const last = await body({ sort_type: 'clicks', per_page: '2', page: '3' });
      expect(last.links.map((l) => [l.svc_id, l.clicks])).toEqual([[ids.E, 0]]);
      expect(last).toMatchObject({ total_results: 5, page: 3, offset: 4, last_offset: 5 });
      const beyond = await body({ sort_type: 'clicks', offset: '9' });
      expect(beyond).toMatchObject({ links: [], total_results: 5, page: null, last_offset: 9 });
      const searchedBeyond = await body({ search: 'example', offset: '9' });
      expect(searchedBeyond).toMatchObject({ links: [], total_results: 5, last_offset: 9 });
      const email = await body({ sort_type: 'clicks', channel: 'email' });
      expect(email.links.map((l) => [l.svc_id, l.clicks])).toEqual([
        [ids.D, 5],
        [ids.C, 3],
      ]);
      expect(email.total_results).toBe(2);
    });
  });

  describe('filters: those of statistics, under the same names', () => {
    // Each filter of the fixture's links and the links it keeps, newest first.
    const cases: [string, (fx: StatsFixture) => string, (keyof StatsFixture['ids'])[]][] = [
      ['channel', () => 'email', ['C', 'D']],
      ['campaign', () => 'spring', ['E', 'C', 'A']],
      ['tag', () => 'x', ['C', 'A']],
      ['tool', () => 'Mail-Form', ['C', 'D']],
      ['tool', () => 'mail-form', ['C', 'D']],
      ['tool', () => 'pub-bar', ['E', 'B', 'A']],
      ['application', () => 'mail', ['C', 'D']],
      ['domain', () => 'GO.example', ['C']],
      ['original_url', () => 'https://example.com/a', ['E', 'A']],
      ['svc_id', (fx) => fx.ids.A, ['A']],
      ['parent', (fx) => fx.ids.A, ['B']],
      ['service', () => 'twitter', ['B', 'A']],
      ['service_postid', () => 'twitter:9002', ['B']],
      ['service_userid', () => 'twitter:100', ['B', 'A']],
      ['sharer_id', (fx) => fx.sharerId, ['C', 'A']],
      ['user_id', () => 'u1', ['A', 'D']],
      ['username', () => 'ann', ['C', 'A']],
      ['shared_at_hour_of_day', () => '10', ['A']],
      ['shared_at_day_of_week', () => '1', ['B', 'D']],
      ['shared_at_hour_of_week', () => '87', ['C']],
      ['channel', () => 'sms', []],
    ];
    it.each(cases)('%s', async (name, value, expected) => {
      const answer = await body({ [name]: value(f) });
      expect(svcIds(answer)).toEqual(expected.map((l) => f.ids[l]));
      expect(answer.total_results).toBe(expected.length);
      // With a search (every fixture URL holds "example"), PostgreSQL filters: the same links,
      // in the same orders as the analytics store's.
      const searched = await body({ [name]: value(f), search: 'example' });
      expect(searched).toEqual(answer);
      const byClicks = await body({ [name]: value(f), sort_type: 'clicks' });
      expect(byClicks.total_results).toBe(expected.length);
      expect(await body({ [name]: value(f), sort_type: 'clicks', search: 'EXAMPLE' })).toEqual(
        byClicks,
      );
      // The same links as totals groups by svc_id under the same filter.
      const totals = await t.http
        .get('/stats/totals.json')
        .query({ v: '3', key: f.key, group_by: 'svc_id', per_page: '100', [name]: value(f) })
        .expect(200);
      const grouped = (totals.body as { groups: { svc_id: string }[] }).groups.map((g) => g.svc_id);
      expect([...grouped].sort()).toEqual([...svcIds(answer)].sort());
    });

    it('a multi-value tag matches one of the link’s values', async () => {
      expect(svcIds(await body({ tag_3: 'b' }, key2))).toEqual([s.S4.svc_id]);
      expect(svcIds(await body({ tag_3: 'b', search: 'x?q' }, key2))).toEqual([s.S4.svc_id]);
      expect(svcIds(await body({ tag_3: 'c' }, key2))).toEqual([]);
      expect(svcIds(await body({ tag_3: 'c', search: 'x?q' }, key2))).toEqual([]);
    });

    it('several filters together', async () => {
      expect(svcIds(await body({ campaign: 'spring', tag: 'x', channel: 'twitter' }))).toEqual([
        ids.A,
      ]);
    });

    it('click dimensions are no filters of links: ignored like any unknown parameter', async () => {
      expect((await body({ country: 'DE' })).total_results).toBe(5);
    });
  });

  describe('search: every word in the URL, notes, tag or campaign, in any case', () => {
    const search = async (words: string, extra: Record<string, string> = {}) =>
      svcIds(await body({ search: words, ...extra }, key2));

    it('finds a word in the URL, the notes, the tag or the campaign', async () => {
      expect(await search('widget')).toEqual([s.S3.svc_id, s.S1.svc_id]);
      expect(await search('digest')).toEqual([s.S2.svc_id]);
      expect(await search('newsletter')).toEqual([s.S2.svc_id]);
      expect(await search('deals')).toEqual([s.S1.svc_id]);
      expect(await search('example.com/2026')).toEqual([s.S2.svc_id]);
    });

    it('needs every word, each in any of the fields, in any case', async () => {
      expect(await search('BLUE')).toEqual([s.S4.svc_id, s.S1.svc_id]);
      expect(await search('blue   Launch')).toEqual([s.S1.svc_id]);
      expect(await search('blue promo summer')).toEqual([s.S1.svc_id]);
      expect(await search('blue digest')).toEqual([]);
      expect(await search('zzz')).toEqual([]);
      const none = await body({ search: 'zzz' }, key2);
      expect(none).toMatchObject({ links: [], total_results: 0, last_offset: 0 });
    });

    it('takes %, _ and \\ as themselves', async () => {
      expect(await search('widget_')).toEqual([s.S3.svc_id]);
      expect(await search('wid_et')).toEqual([]);
      expect(await search('100%')).toEqual([s.S4.svc_id]);
      expect(await search('%')).toEqual([s.S4.svc_id]);
      expect(await search('\\')).toEqual([]);
    });

    it('a word never spans two fields', async () => {
      // S2: …hello-world, then its notes "Weekly digest".
      expect(await search('world weekly')).toEqual([s.S2.svc_id]);
      expect(await search('world_weekly')).toEqual([]);
      expect(await search('worldweekly')).toEqual([]);
    });

    it('with filters, sort_type=clicks and paging', async () => {
      expect(await search('promo', { tool: 'web-form' })).toEqual([s.S3.svc_id, s.S1.svc_id]);
      expect(await search('example', { channel: 'email' })).toEqual([s.S2.svc_id]);
      const byClicks = await body({ search: 'blue', sort_type: 'clicks' }, key2);
      expect(byClicks.links.map((l) => [l.svc_id, l.clicks])).toEqual([
        [s.S1.svc_id, 3],
        [s.S4.svc_id, 1],
      ]);
      const second = await body({ search: 'example', per_page: '3', page: '2' }, key2);
      expect(svcIds(second)).toEqual([s.S1.svc_id]);
      expect(second).toMatchObject({ total_results: 4, page: 2, offset: 3, last_offset: 4 });
    });
  });

  it('never lists another project’s links', async () => {
    expect(svcIds(await body({ search: 'example' }))).toEqual([ids.E, ids.C, ids.B, ids.A, ids.D]);
    expect((await body({ search: 'widget' })).total_results).toBe(0);
    expect((await body({ channel: 'email' }, key2)).total_results).toBe(1);
    expect((await body({ svc_id: ids.A }, key2)).links).toEqual([]);
    expect((await body({ sort_type: 'clicks' }, key2)).total_results).toBe(4);
  });

  describe('forms', () => {
    it('answers POST like GET, with a form body', async () => {
      const res = await t.http
        .post('/url/list.json')
        .type('form')
        .send({ v: '3', key: key2, search: 'blue', sort_type: 'clicks' })
        .expect(200);
      expect(res.body).toEqual(await body({ search: 'blue', sort_type: 'clicks' }, key2));
    });

    it('answers txt with one svc_url per line', async () => {
      const res = await t.http
        .get('/url/list.txt')
        .query({ v: '3', key: key2, search: 'widget' })
        .expect(200);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.text).toBe(`${s.S3.svc_url}\n${s.S1.svc_url}`);
      const empty = await t.http
        .get('/url/list.txt')
        .query({ v: '3', key: key2, search: 'zzz' })
        .expect(200);
      expect(empty.text).toBe('');
    });

    it('answers JSON-P with callback', async () => {
      const res = await list({ callback: 'cb.list', per_page: '1' }).expect(200);
      expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
      const answer = await body({ per_page: '1' });
      expect(res.text).toBe(`cb.list(${JSON.stringify(answer)});`);
    });
  });

  describe('errors', () => {
    it('refuses bad sort_type, sort_order, per_page, page and offset, naming the parameter', async () => {
      await refused(
        { sort_type: 'alpha' },
        'Invalid parameter sort_type: must be one of created_at, clicks',
      );
      await refused({ sort_order: 'up' }, 'Invalid parameter sort_order: must be asc or desc');
      await refused(
        { per_page: '0' },
        'Invalid parameter per_page: must be an integer from 1 to 1000',
      );
      await refused(
        { per_page: '1001' },
        'Invalid parameter per_page: must be an integer from 1 to 1000',
      );
      await refused({ page: '0' }, 'Invalid parameter page: must be an integer from 1 to 1000000');
      await refused(
        { offset: '-1' },
        'Invalid parameter offset: must be an integer from 0 to 100000000',
      );
      expect((await body({ per_page: '1000' })).per_page).toBe(1000);
    });

    it('refuses filters as statistics do: too long, out of range, repeated', async () => {
      await refused(
        { channel: 'x'.repeat(256) },
        'Invalid parameter channel: must be at most 255 characters',
      );
      await refused(
        { sharer_id: 'x'.repeat(37) },
        'Invalid parameter sharer_id: must be at most 36 characters',
      );
      await refused(
        { original_url: `https://example.com/${'a'.repeat(4077)}` },
        'Invalid parameter original_url: must be at most 4096 characters',
      );
      await refused(
        { shared_at_hour_of_day: '24' },
        'Invalid parameter shared_at_hour_of_day: must be an integer from 0 to 23',
      );
      await refused(
        { shared_at_day_of_week: 'mon' },
        'Invalid parameter shared_at_day_of_week: must be an integer from 0 to 6',
      );
      const repeated = await t.http
        .get('/url/list.json?channel=email&channel=sms')
        .query({ v: '3', key: f.key })
        .expect(400);
      expect(repeated.body.error_message).toBe(
        'Invalid parameter channel: takes one value per request',
      );
    });

    it('refuses a search of more than 10 words or 4096 characters', async () => {
      await refused(
        { search: 'a b c d e f g h i j k' },
        'Invalid parameter search: takes at most 10 words',
      );
      await refused(
        { search: 'a'.repeat(4097) },
        'Invalid parameter search: must be at most 4096 characters',
      );
      expect((await body({ search: 'a b c d e f g h i j' })).total_results).toBe(0);
    });

    it('checks the format and callback, then v, then key, then the rest', async () => {
      const xml = await t.http.get('/url/list.xml').query({ v: '2', sort_type: 'x' }).expect(400);
      expect(xml.body.error_message).toBe(
        'Invalid parameter format: "xml" is not supported; use json or txt',
      );
      const callback = await list({ v: '2', callback: 'alert(1)', sort_type: 'x' }).expect(400);
      expect(callback.body.error_message).toMatch(/^Invalid parameter callback:/);
      const v = await list({ v: '2', key: 'nope', sort_type: 'x' }).expect(400);
      expect(v.body.error_message).toBe('Invalid parameter v: must be 3');
      const key = await list({ key: 'nope', sort_type: 'x' }).expect(403);
      expect(key.body).toEqual({ error: 403, error_message: 'Invalid API key specified' });
      const missing = await t.http.get('/url/list.json').query({ v: '3' }).expect(400);
      expect(missing.body.error_message).toBe('Missing required parameter: key');
    });
  });
});

/** The embedded default (PGlite without pg_trgm, in-process jobs): the search reads the project's links. */
describe('url/list.json on the embedded database', () => {
  let embedded: EmbeddedApp;
  let app: EmbeddedApp['app'];
  let http: EmbeddedApp['http'];
  let key: string;

  beforeAll(async () => {
    embedded = await startEmbeddedApp('embedded_list');
    ({ app, http, key } = embedded);
  }, 60_000);

  afterAll(() => embedded?.close());

  it('searches, filters and sorts by clicks without the trigram index', async () => {
    const [{ n }] = await app
      .get(DataSource)
      .query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'ix_links_search'`,
      );
    expect(n).toBe(0);
    const make = async (params: Record<string, string>) =>
      (
        await http
          .get('/url.json')
          .query({ v: '3', key, tool: 'web-form', channel: 'twitter', ...params })
          .expect(200)
      ).body as LinkRecord;
    const a = await make({ url: 'https://example.com/Garden-Tools', notes: 'Spring' });
    const b = await make({
      url: 'https://example.com/kitchen',
      notes: 'garden party',
      channel: 'email',
    });
    const c = await make({ url: 'https://example.com/office' });
    await http.get(`/${b.path}`).set('Host', b.domain).set('User-Agent', BROWSER).expect(302);
    await app.get(ClickBuffer, { strict: false }).flush();
    await app.get(JobQueue).drain(10_000);
    const list = async (params: Record<string, string>) =>
      (
        await http
          .get('/url/list.json')
          .query({ v: '3', key, ...params })
          .expect(200)
      ).body as ListBody;
    const garden = await list({ search: 'GARDEN' });
    expect(garden.links.map((l) => l.svc_id)).toEqual([b.svc_id, a.svc_id]);
    expect(garden.total_results).toBe(2);
    expect((await list({ search: 'garden', channel: 'email' })).links).toEqual([
      { ...b, clicks: 1 },
    ]);
    expect(
      (await list({ search: 'example', sort_type: 'clicks' })).links.map((l) => [
        l.svc_id,
        l.clicks,
      ]),
    ).toEqual([
      [b.svc_id, 1],
      [c.svc_id, 0],
      [a.svc_id, 0],
    ]);
  });
});

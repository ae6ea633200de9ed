import { randomUUID } from 'node:crypto';
import { STAMP_COLUMNS } from '../../src/analytics/analytics-schema';
import { LinkStamps } from '../../src/analytics/link-stamps';
import { RetentionService, retentionCutoff } from '../../src/privacy/retention.service';
import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';
import { conversionRollup, statsLink } from '../factories/stats';

/**
 * Retention (docs/api.md, "Retention"): a project's events older than its retention_days lose
 * their raw rows in both stores, by a job bounded per run and resumable; their hourly rollups stay,
 * and every statistic answers as before.
 */
jest.setTimeout(240_000);

describe('retention', () => {
  let t: TestApp;
  let retention: RetentionService;
  const now = new Date();
  const DAYS = 30;
  const cutoff = retentionCutoff(DAYS, now);
  const daysAgo = (days: number, hour = 10) => {
    const at = new Date(now.getTime() - days * 86_400_000);
    at.setUTCHours(hour, 17, 0, 0);
    return at.toISOString();
  };

  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    retention = t.app.get(RetentionService, { strict: false });
  });
  afterAll(() => t.close());

  const db = () => t.analytics.database;

  const linkOf = async (svcId: string) =>
    (
      await t.db.query<{ id: string; project_id: string }>(
        'SELECT id::text AS id, project_id FROM links WHERE svc_id = $1',
        [svcId],
      )
    ).rows[0];

  /** Clicks of a link at a time, stamped as the click job stamps them, with a country. */
  const clicks = async (svcId: string, at: string, humans: number, bots = 0, country = 'GB') => {
    const link = await linkOf(svcId);
    const stamp = (await new LinkStamps(t.analytics).of([link.project_id], [link.id])).get(
      link.id,
    )!;
    const time = at.replace('T', ' ').replace('Z', '');
    const rows = Array.from({ length: humans + bots }, (_, i) =>
      [
        link.project_id,
        link.id,
        time,
        randomUUID(),
        'https://ref.example/',
        'Mozilla/5.0',
        '81.2.69.0',
        i < humans ? 0 : 1,
        country,
        1,
        stamp,
      ].join('\t'),
    );
    await t.analytics.insertTabSeparated(
      'clicks',
      [
        'project_id',
        'link_id',
        'clicked_at',
        'click_id',
        'referrer',
        'user_agent',
        'ip',
        'is_bot',
        'country',
        'enriched',
        ...STAMP_COLUMNS.map(([name]) => name),
      ],
      rows.map((row) => `${row}\n`).join(''),
      rows.length,
    );
  };

  /** Conversions in both stores: the analytics event and the PostgreSQL record. */
  const conversions = async (svcId: string, at: string, type: string, n: number, value: number) => {
    await conversionRollup(t, svcId, at, type, n, value);
    const link = await linkOf(svcId);
    for (let i = 0; i < n; i++) {
      await t.db.query(
        `INSERT INTO conversions (project_id, link_id, svc_id, type, value, converted_at, ip, user_agent,
                                  session_id, redirection_id)
         VALUES ($1, $2, $3, $4, $5, $6, '81.2.69.160', 'Mozilla/5.0', 's1', gen_random_uuid())`,
        [link.project_id, link.id, svcId, type, i === 0 ? value : 0, at],
      );
    }
  };

  const count = async (sql: string, params: Record<string, unknown>) =>
    Number((await t.analytics.query<{ n: string }>(sql, params))[0].n);
  const rawBefore = (table: 'clicks' | 'conversions', projectId: string) =>
    count(
      `SELECT count() AS n FROM ${db()}.${table} WHERE project_id = {p:UUID}
         AND ${table === 'clicks' ? 'clicked_at' : 'converted_at'} < {c:DateTime64(3, 'UTC')}`,
      { p: projectId, c: cutoff.toISOString().replace('T', ' ').replace('Z', '') },
    );
  const retiredSum = (table: 'clicks_retired' | 'conversions_retired', projectId: string) =>
    count(`SELECT sum(n) AS n FROM ${db()}.${table} WHERE project_id = {p:UUID}`, { p: projectId });
  const recordsBefore = async (projectId: string) =>
    Number(
      (
        await t.db.query<{ n: string }>(
          'SELECT count(*) AS n FROM conversions WHERE project_id = $1 AND converted_at < $2',
          [projectId, cutoff],
        )
      ).rows[0].n,
    );

  /** A project with conversions, its links (B below A, D below B), and events old and recent. */
  const fixture = async (object: Record<string, unknown>) => {
    const project = await createProject(t, {
      conversions: { enabled: true, domains: 'all' },
      ...object,
    });
    const key = project.api_key;
    const A = await statsLink(t, key, {
      url: 'https://example.com/a',
      campaign: 'spring',
      campaign_description: 'Spring',
    });
    const B = await statsLink(t, key, {
      url: 'https://example.com/b',
      channel: 'email',
      parent: A,
    });
    const C = await statsLink(t, key, { url: 'https://example.com/c', channel: 'facebook' });
    const D = await statsLink(t, key, { url: 'https://example.com/d', parent: B, tag: 'x' });
    for (const [days, scale] of [
      [140, 1],
      [110, 2],
      [70, 3],
      [DAYS + 1, 1],
      [3, 2],
    ] as const) {
      await clicks(A, daysAgo(days), 2 * scale, 1, 'GB');
      await clicks(B, daysAgo(days, 11), scale, 0, 'FR');
      await clicks(D, daysAgo(days, 12), scale, 1, 'GB');
      await conversions(A, daysAgo(days, 13), 'goal_1', scale, 100 * scale);
      await conversions(D, daysAgo(days, 14), 'pageview', 1, 0);
    }
    await clicks(C, daysAgo(100), 4);
    // An update after old clicks: those are stamped with the version before (regrouped when read).
    await t.http
      .get(`/url/update/${C}.json`)
      .query({ v: '3', key, tool: 't', campaign: 'fall', campaign_description: 'Fall' })
      .expect(200);
    await clicks(C, daysAgo(2), 1);
    // A move after old clicks: C below A (its old clicks are corrected to its new chain).
    await t.http
      .get(`/url/update/${C}.json`)
      .query({ v: '3', key, tool: 't', parent: A })
      .expect(200);
    await t.settle();
    await clicks(C, daysAgo(1), 2);
    return { key, projectId: (await linkOf(A)).project_id, ids: { A, B, C, D } };
  };

  const period = { start_date: daysAgo(160).slice(0, 10), end_date: daysAgo(-2).slice(0, 10) };
  const get = async (path: string, params: Record<string, string>) => {
    const res = await t.http.get(path).query({ v: '3', ...params });
    expect(res.status).toBe(200);
    return res.body as Record<string, unknown>;
  };
  /** Every statistic the retired rollups must keep: range, totals, intervals, dimensions, chains. */
  const answers = async (key: string, ids: Record<string, string>) => {
    const withKey = (params: Record<string, string>) => ({ key, ...period, ...params });
    return {
      range: await get(
        '/stats/range.json',
        withKey({ group_by: 'channel', with_conversions: 'true' }),
      ),
      rangePivot: await get(
        '/stats/range.json',
        withKey({ group_by: 'channel', pivot: 'campaign', with_bots: 'true' }),
      ),
      totals: await get(
        '/stats/totals.json',
        withKey({ group_by: 'campaign', with_conversions: 'true' }),
      ),
      intervals: await get(
        '/stats/range/intervals.json',
        withKey({ interval: 'day', with_conversions: 'true' }),
      ),
      country: await get(
        '/stats/range.json',
        withKey({ group_by: 'country', with_conversions: 'true' }),
      ),
      countryTotals: await get(
        '/stats/totals.json',
        withKey({ group_by: 'channel', country: 'GB' }),
      ),
      chain: await get(
        '/stats/range.json',
        withKey({ group_by: 'channel', with_chain: 'true', with_conversions: 'true' }),
      ),
      chainTotals: await get(
        '/stats/totals.json',
        withKey({ group_by: 'tag', with_chain: 'true' }),
      ),
      firstTouch: await get(
        '/stats/range.json',
        withKey({ group_by: 'channel', attribution: 'first' }),
      ),
      cascade: await get(`/stats/${ids.A}/chain.json`, { key, with_conversions: 'true' }),
      linkIntervals: await get(`/stats/${ids.A}/intervals.json`, withKey({ interval: 'day' })),
      details: await get(`/stats/${ids.A}.json`, { key }),
    };
  };

  const runToEnd = async () => {
    let runs = 0;
    while ((await retention.run(2, now)) > 0) runs++;
    return runs;
  };

  it('removes the raw rows older than the cutoff in both stores, keeps their rollups and every answer', async () => {
    const kept = await fixture({});
    const retired = await fixture({ retention_days: DAYS });
    const before = await answers(retired.key, retired.ids);
    const keptBefore = await answers(kept.key, kept.ids);
    const rawClicks = await rawBefore('clicks', retired.projectId);
    const rawConversions = await rawBefore('conversions', retired.projectId);
    expect(rawClicks).toBeGreaterThan(0);
    expect(await recordsBefore(retired.projectId)).toBeGreaterThan(0);

    expect(await runToEnd()).toBeGreaterThan(1);

    expect(await rawBefore('clicks', retired.projectId)).toBe(0);
    expect(await rawBefore('conversions', retired.projectId)).toBe(0);
    expect(await recordsBefore(retired.projectId)).toBe(0);
    expect(await retiredSum('clicks_retired', retired.projectId)).toBe(rawClicks);
    expect(await retiredSum('conversions_retired', retired.projectId)).toBe(rawConversions);
    // What remains holds no address, user agent, referrer nor click id.
    const columns = await t.analytics.query<{ name: string }>(
      `SELECT name FROM system.columns WHERE database = {d:String} AND table = 'clicks_retired'`,
      { d: db() },
    );
    for (const personal of ['ip', 'user_agent', 'referrer', 'click_id', 'session_id'])
      expect(columns.map((c) => c.name)).not.toContain(personal);
    // Recent events keep their raw rows.
    expect(
      await count(`SELECT count() AS n FROM ${db()}.clicks WHERE project_id = {p:UUID}`, {
        p: retired.projectId,
      }),
    ).toBeGreaterThan(0);

    const after = await answers(retired.key, retired.ids);
    for (const name of Object.keys(before) as (keyof typeof before)[])
      expect([name, after[name]]).toEqual([name, before[name]]);
    // A project without retention is untouched.
    expect(await rawBefore('clicks', kept.projectId)).toBeGreaterThan(0);
    expect(await recordsBefore(kept.projectId)).toBeGreaterThan(0);
    expect(await retiredSum('clicks_retired', kept.projectId)).toBe(0);
    expect(await answers(kept.key, kept.ids)).toEqual(keptBefore);
    // A second run finds nothing more.
    expect(await retention.run(2, now)).toBe(0);
  });

  it('resumes a chunk stopped between its rollups and its deletes, counting it once', async () => {
    const { key, projectId, ids } = await fixture({ retention_days: DAYS });
    const before = await answers(key, ids);
    const rawClicks = await rawBefore('clicks', projectId);
    const rawConversions = await rawBefore('conversions', projectId);
    expect(await retention.step(projectId, cutoff, 'rollup')).toBe(true);
    // The rollups of the chunk are written, its raw rows are all still there.
    expect(await retiredSum('clicks_retired', projectId)).toBeGreaterThan(0);
    expect(await rawBefore('clicks', projectId)).toBe(rawClicks);
    // A crash there: the next runs finish the chunk (its rollup insert again, skipped) and go on.
    await runToEnd();
    expect(await rawBefore('clicks', projectId)).toBe(0);
    expect(await retiredSum('clicks_retired', projectId)).toBe(rawClicks);
    expect(await retiredSum('conversions_retired', projectId)).toBe(rawConversions);
    const after = await answers(key, ids);
    expect(after.range).toEqual(before.range);
    expect(after.totals).toEqual(before.totals);
  });

  it('retires at most the given number of chunks per run, a month each, and resumes', async () => {
    const { projectId } = await fixture({ retention_days: DAYS });
    // Other projects of the fixture are retired already: each run's chunks are this project's.
    expect(await retention.run(1, now)).toBe(1);
    const state = async () =>
      (
        await t.db.query<{ retired_until: Date; rolled_until: Date }>(
          'SELECT retired_until, rolled_until FROM retention_state WHERE project_id = $1',
          [projectId],
        )
      ).rows[0];
    const first = await state();
    expect(first.retired_until.getTime()).toBe(first.rolled_until.getTime());
    expect(first.retired_until.getUTCDate()).toBe(1);
    expect(first.retired_until.getTime()).toBeLessThan(cutoff.getTime());
    expect(await rawBefore('clicks', projectId)).toBeGreaterThan(0);
    expect(await retention.run(2, now)).toBe(2);
    await runToEnd();
    expect((await state()).retired_until.getTime()).toBe(cutoff.getTime());
    expect(await rawBefore('clicks', projectId)).toBe(0);
  });

  it('shows retention_days in the project records, and refuses a bad one naming it', async () => {
    const project = await createProject(t, { retention_days: 400 });
    const shown = await t.http
      .post(`/projects/${project.api_key}/show`)
      .type('form')
      .send({ subscription_key: t.subscriptionKey, application_key: t.applicationKey });
    expect(shown.status).toBe(200);
    expect(JSON.stringify(shown.body)).toContain('"retention_days":400');
    const refused = await t.http
      .post(`/projects/${project.api_key}/update`)
      .type('form')
      .send({
        subscription_key: t.subscriptionKey,
        application_key: t.applicationKey,
        json: JSON.stringify({ retention_days: 0 }),
      });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('json.retention_days');
  });
});

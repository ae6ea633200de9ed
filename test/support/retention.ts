import { randomUUID } from 'node:crypto';
import { STAMP_COLUMNS } from '../../src/analytics/analytics-schema';
import { LinkStamps } from '../../src/analytics/link-stamps';
import { retentionCutoff } from '../../src/privacy/retention.service';
import { createProject } from '../factories/projects';
import { conversionRollup, statsLink } from '../factories/stats';
import { TestApp } from './app';

/**
 * Retention's e2e fixture (test/e2e/privacy-retention*.e2e-spec.ts): a project's links and events
 * old and recent in both stores, the raw rows and rollups counted, and every statistic the
 * retired rollups must keep.
 */
export function retentionFixture(t: () => TestApp, now: Date, DAYS: number) {
  const cutoff = retentionCutoff(DAYS, now);
  const daysAgo = (days: number, hour = 10) => {
    const at = new Date(now.getTime() - days * 86_400_000);
    at.setUTCHours(hour, 17, 0, 0);
    return at.toISOString();
  };
  const db = () => t().analytics.database;

  const linkOf = async (svcId: string) =>
    (
      await t().db.query<{ id: string; project_id: string }>(
        'SELECT id::text AS id, project_id FROM links WHERE svc_id = $1',
        [svcId],
      )
    ).rows[0];

  /** Clicks of a link at a time, stamped as the click job stamps them, with a country. */
  const clicks = async (svcId: string, at: string, humans: number, bots = 0, country = 'GB') => {
    const link = await linkOf(svcId);
    const stamp = (await new LinkStamps(t().analytics).of([link.project_id], [link.id])).get(
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
    await t().analytics.insertTabSeparated(
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
    await conversionRollup(t(), svcId, at, type, n, value);
    const link = await linkOf(svcId);
    for (let i = 0; i < n; i++) {
      await t().db.query(
        `INSERT INTO conversions (project_id, link_id, svc_id, type, value, converted_at, ip, user_agent,
                                  session_id, redirection_id)
         VALUES ($1, $2, $3, $4, $5, $6, '81.2.69.160', 'Mozilla/5.0', 's1', gen_random_uuid())`,
        [link.project_id, link.id, svcId, type, i === 0 ? value : 0, at],
      );
    }
  };

  const count = async (sql: string, params: Record<string, unknown>) =>
    Number((await t().analytics.query<{ n: string }>(sql, params))[0].n);
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
        await t().db.query<{ n: string }>(
          'SELECT count(*) AS n FROM conversions WHERE project_id = $1 AND converted_at < $2',
          [projectId, cutoff],
        )
      ).rows[0].n,
    );

  /** A project with conversions, its links (B below A, D below B), and events old and recent. */
  const fixture = async (object: Record<string, unknown>) => {
    const project = await createProject(t(), {
      conversions: { enabled: true, domains: 'all' },
      ...object,
    });
    const key = project.api_key;
    const A = await statsLink(t(), key, {
      url: 'https://example.com/a',
      campaign: 'spring',
      campaign_description: 'Spring',
    });
    const B = await statsLink(t(), key, {
      url: 'https://example.com/b',
      channel: 'email',
      parent: A,
    });
    const C = await statsLink(t(), key, { url: 'https://example.com/c', channel: 'facebook' });
    const D = await statsLink(t(), key, { url: 'https://example.com/d', parent: B, tag: 'x' });
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
    await t()
      .http.get(`/url/update/${C}.json`)
      .query({ v: '3', key, tool: 't', campaign: 'fall', campaign_description: 'Fall' })
      .expect(200);
    await clicks(C, daysAgo(2), 1);
    // A move after old clicks: C below A (its old clicks are corrected to its new chain).
    await t()
      .http.get(`/url/update/${C}.json`)
      .query({ v: '3', key, tool: 't', parent: A })
      .expect(200);
    await t().settle();
    await clicks(C, daysAgo(1), 2);
    return { key, projectId: (await linkOf(A)).project_id, ids: { A, B, C, D } };
  };

  const period = { start_date: daysAgo(160).slice(0, 10), end_date: daysAgo(-2).slice(0, 10) };
  const get = async (path: string, params: Record<string, string>) => {
    const res = await t()
      .http.get(path)
      .query({ v: '3', ...params });
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

  return {
    cutoff,
    daysAgo,
    linkOf,
    clicks,
    conversions,
    count,
    rawBefore,
    retiredSum,
    recordsBefore,
    fixture,
    period,
    get,
    answers,
  };
}

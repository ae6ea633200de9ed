import { ClicksService } from '../../src/clicks/clicks.service';
import { TestApp, createTestApp } from '../support/app';
import { clicksOf, linkRow } from '../support/clicks';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/**
 * link_click_totals and link_conversion_totals (totals.json's all-time figures) follow every write
 * to the hourly rollups: ingestion with its retries, and inserts, upserts, updates and deletes.
 */
describe('per-link totals of the rollups', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const newLink = async () => linkRow(t, (await createLink(t, key)).svc_id);

  async function clickTotals(linkIds: string[]): Promise<Record<string, [number, number]>> {
    const { rows } = await t.db.query<{ link_id: string; clicks: string; bot_clicks: string }>(
      'SELECT link_id::text, clicks, bot_clicks FROM link_click_totals WHERE link_id = ANY($1::bigint[])',
      [linkIds],
    );
    return Object.fromEntries(rows.map((r) => [r.link_id, [Number(r.clicks), Number(r.bot_clicks)]]));
  }

  /** The link's conversion totals row, its figures that are not zero (none: no row). */
  async function conversionTotals(linkId: string): Promise<Record<string, number> | null> {
    const { rows } = await t.db.query<Record<string, string>>('SELECT * FROM link_conversion_totals WHERE link_id = $1', [linkId]);
    if (rows.length === 0) return null;
    return Object.fromEntries(
      Object.entries(rows[0])
        .filter(([column, value]) => column !== 'link_id' && Number(value) !== 0)
        .map(([column, value]) => [column, Number(value)]),
    );
  }

  it('adds what ingestion adds to the rollups, once per click however often a batch comes', async () => {
    const a = await newLink();
    const b = await newLink();
    const service = t.app.get(ClicksService, { strict: false });
    // Two links, two hours each (clicks a second apart back from the half hour).
    const hour = Date.UTC(2026, 10, 23, 10, 30);
    const batch = [...clicksOf(a, 3, 1, hour), ...clicksOf(a, 2, 0, hour + 3_600_000), ...clicksOf(b, 1, 2, hour), ...clicksOf(b, 4, 0, hour + 7_200_000)];
    expect(await service.ingest(batch)).toBe(13);
    expect(await clickTotals([a.linkId, b.linkId])).toEqual({ [a.linkId]: [5, 1], [b.linkId]: [5, 2] });

    // Retried (the unique-violation path), twice at once, and overlapping a stored batch.
    expect(await service.ingest(batch)).toBe(0);
    const more = clicksOf(a, 2, 0, hour + 60_000);
    expect((await Promise.all([service.ingest(more), service.ingest(more)])).sort()).toEqual([0, 2]);
    expect(await service.ingest([...more, ...clicksOf(b, 0, 1, hour + 60_000)])).toBe(1);
    expect(await clickTotals([a.linkId, b.linkId])).toEqual({ [a.linkId]: [7, 1], [b.linkId]: [5, 3] });

    // Always the sums of the hourly rows.
    const { rows } = await t.db.query<{ link_id: string; clicks: string; bots: string }>(
      `SELECT link_id::text, SUM(clicks) AS clicks, SUM(bot_clicks) AS bots FROM link_clicks_hourly
       WHERE link_id = ANY($1::bigint[]) GROUP BY link_id`,
      [[a.linkId, b.linkId]],
    );
    expect(Object.fromEntries(rows.map((r) => [r.link_id, [Number(r.clicks), Number(r.bots)]]))).toEqual(
      await clickTotals([a.linkId, b.linkId]),
    );
  });

  it('follows inserts, upserts, updates and deletes of the click rollups', async () => {
    const a = await newLink();
    const b = await newLink();
    const insert = (link: { linkId: string; projectId: string }, hour: string, clicks: number, bots: number) =>
      t.db.query(
        `INSERT INTO link_clicks_hourly (link_id, hour, project_id, clicks, bot_clicks) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (link_id, hour) DO UPDATE SET clicks = link_clicks_hourly.clicks + EXCLUDED.clicks,
                                                   bot_clicks = link_clicks_hourly.bot_clicks + EXCLUDED.bot_clicks`,
        [link.linkId, hour, link.projectId, clicks, bots],
      );
    await insert(a, '2026-11-01T10:00:00Z', 4, 1);
    await insert(a, '2026-11-01T11:00:00Z', 6, 0);
    await insert(a, '2026-11-01T10:00:00Z', 1, 1); // the upsert's update
    expect(await clickTotals([a.linkId, b.linkId])).toEqual({ [a.linkId]: [11, 2] });

    await t.db.query(`UPDATE link_clicks_hourly SET clicks = clicks * 2 WHERE link_id = $1`, [a.linkId]);
    expect(await clickTotals([a.linkId])).toEqual({ [a.linkId]: [22, 2] });
    // A row moved to another link moves its figures.
    await t.db.query(`UPDATE link_clicks_hourly SET link_id = $2 WHERE link_id = $1 AND hour = '2026-11-01T11:00:00Z'`, [a.linkId, b.linkId]);
    expect(await clickTotals([a.linkId, b.linkId])).toEqual({ [a.linkId]: [10, 2], [b.linkId]: [12, 0] });

    await t.db.query(`DELETE FROM link_clicks_hourly WHERE link_id = $1`, [a.linkId]);
    expect(await clickTotals([a.linkId, b.linkId])).toEqual({ [a.linkId]: [0, 0], [b.linkId]: [12, 0] });

    // A deleted link takes its totals along.
    await t.db.query(`DELETE FROM links WHERE id = $1`, [b.linkId]);
    expect(await clickTotals([b.linkId])).toEqual({});
  });

  it('follows the conversion rollups per type', async () => {
    const a = await newLink();
    const add = (hour: string, type: string, count: number, value: number) =>
      t.db.query(
        `INSERT INTO link_conversions_hourly (link_id, hour, type, project_id, count, value) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (link_id, hour, type) DO UPDATE SET count = link_conversions_hourly.count + EXCLUDED.count,
                                                         value = link_conversions_hourly.value + EXCLUDED.value`,
        [a.linkId, hour, type, a.projectId, count, value],
      );
    await add('2026-11-01T10:00:00Z', 'pageview', 3, 0);
    await add('2026-11-01T10:00:00Z', 'goal_1', 1, 1500);
    await add('2026-11-02T08:00:00Z', 'goal_1', 2, 500);
    await add('2026-11-01T10:00:00Z', 'goal_1', 1, 100);
    expect(await conversionTotals(a.linkId)).toEqual({ pageviews: 3, goal_1_count: 4, goal_1_value: 2100 });

    await t.db.query(`UPDATE link_conversions_hourly SET type = 'goal_2' WHERE link_id = $1 AND hour = '2026-11-02T08:00:00Z'`, [a.linkId]);
    expect(await conversionTotals(a.linkId)).toEqual({ pageviews: 3, goal_1_count: 2, goal_1_value: 1600, goal_2_count: 2, goal_2_value: 500 });
    await t.db.query(`DELETE FROM link_conversions_hourly WHERE link_id = $1 AND type = 'pageview'`, [a.linkId]);
    expect(await conversionTotals(a.linkId)).toEqual({ goal_1_count: 2, goal_1_value: 1600, goal_2_count: 2, goal_2_value: 500 });

    // Every type has its column; a link without conversions has no row.
    for (const n of [3, 4, 5, 6, 7, 8, 9, 10]) await add('2026-11-03T00:00:00Z', `goal_${n}`, n, n * 10);
    const all = await conversionTotals(a.linkId);
    expect(all).toMatchObject({ goal_3_count: 3, goal_3_value: 30, goal_10_count: 10, goal_10_value: 100 });
    expect(Object.keys(all!)).toHaveLength(20);
    expect(await conversionTotals((await newLink()).linkId)).toBeNull();
  });
});

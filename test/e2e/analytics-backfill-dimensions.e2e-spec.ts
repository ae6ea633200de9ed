import { randomUUID } from 'node:crypto';
import { LinkStamps } from '../../src/analytics/link-stamps';
import { CLICK_DIMENSION_COLUMNS } from '../../src/analytics/analytics-schema';
import { ClicksRepository } from '../../src/clicks/clicks.repository';
import { ClicksService } from '../../src/clicks/clicks.service';
import { TestApp, createTestApp } from '../support/app';
import { outcome, runBackfill } from '../support/backfill';
import { BROWSER, enricher, linkRow } from '../support/clicks';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { NO_DIMENSIONS } from '../factories/click-dimensions';

const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1';

/** What an earlier version kept of a click: its user agent, referrer and address as CLICK_IP stored it. */
interface OldClick {
  referrer: string | null;
  userAgent: string | null;
  ip: string | null;
}

/** A GB iPhone from Google (an anonymised IPv4 address), a DE desktop (IPv6, its first 48 bits), one with nothing. */
const OLD_CLICKS: Record<'iphone' | 'ipv6' | 'bare', OldClick> = {
  iphone: { referrer: 'https://www.google.com/x', userAgent: SAFARI_IPHONE, ip: '81.2.69.0' },
  ipv6: { referrer: null, userAgent: BROWSER, ip: '2a00:1450:4001::' },
  bare: { referrer: null, userAgent: null, ip: null },
};

type Dimensions = Record<(typeof CLICK_DIMENSION_COLUMNS)[number], string | null>;

/**
 * `npm run cli -- analytics:backfill`, its `dimensions` step: clicks and conversions stored by a
 * version before click dimensions (`enriched` 0) are described from what they kept, as ingestion
 * describes clicks, once; a conversion takes its click's (its click id from PostgreSQL).
 */
describe('analytics:backfill dimensions', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    key = (await createProject(t, { conversions: { enabled: true, domains: 'all' } })).api_key;
  });
  afterAll(() => t.close());

  const backfill = () => runBackfill(t);

  const dimensionsOf = async (table: 'clicks' | 'conversions', idColumn: string, id: string) => {
    const [row] = await t.analytics.query<Dimensions & { enriched: number; click: string | null }>(
      `SELECT ${CLICK_DIMENSION_COLUMNS.join(', ')}, enriched, toString(click_id) AS click
       FROM ${t.analytics.database}.${table} WHERE ${idColumn} = {id:UUID}`,
      { id },
    );
    return row;
  };
  const dimensions = (row: Record<string, unknown>): Dimensions =>
    Object.fromEntries(CLICK_DIMENSION_COLUMNS.map((c) => [c, row[c]])) as Dimensions;

  it('describes the clicks and conversions stored before click dimensions as ingestion would, once', async () => {
    const db = t.analytics.database;
    const link = await createLink(t, key);
    const row = await linkRow(t, link.svc_id);
    const ids = { iphone: randomUUID(), ipv6: randomUUID(), bare: randomUUID() };
    // Clicks as an earlier version stored them: no dimension columns (enriched 0).
    for (const [name, click] of Object.entries(OLD_CLICKS)) {
      await t.analytics.command(
        `INSERT INTO ${db}.clicks (project_id, link_id, clicked_at, click_id, referrer, user_agent, ip, is_bot)
         VALUES ({project:UUID}, {link:UInt64}, now64(3, 'UTC'), {id:UUID}, {referrer:Nullable(String)},
                 {agent:Nullable(String)}, {ip:Nullable(String)}, 0)`,
        {
          project: row.projectId,
          link: row.linkId,
          id: ids[name as keyof typeof ids],
          referrer: click.referrer,
          agent: click.userAgent,
          ip: click.ip,
        },
      );
    }
    // A conversion of the iPhone's click, stored without its click id; one whose click PostgreSQL
    // does not know.
    const {
      rows: [pg],
    } = await t.db.query<{ id: string }>(
      `INSERT INTO conversions (project_id, link_id, svc_id, type, value, converted_at, redirection_id)
       VALUES ($1, $2, $3, 'goal_1', 300, now(), $4) RETURNING id::text AS id`,
      [row.projectId, row.linkId, link.svc_id, ids.iphone],
    );
    const orphan = randomUUID();
    for (const id of [pg.id, orphan]) {
      await t.analytics.command(
        `INSERT INTO ${db}.conversions (project_id, link_id, converted_at, conversion_id, type, value)
         VALUES ({project:UUID}, {link:UInt64}, now64(3, 'UTC'), {id:UUID}, 'goal_1', 300)`,
        { project: row.projectId, link: row.linkId, id },
      );
    }
    // A table an interrupted run left behind is replaced.
    await t.analytics.command(
      `CREATE TABLE ${db}.backfill_dimensions_places (x UInt8) ENGINE = Memory`,
    );
    const byCountry = async () =>
      (
        await t.http
          .get('/stats/range.json')
          .query({
            v: '3',
            key,
            group_by: 'country',
            with_conversions: 'true',
            start_date: new Date(Date.now() - 3_600_000).toISOString(),
            end_date: new Date(Date.now() + 60_000).toISOString(),
          })
          .expect(200)
      ).body.groups as { country: string | null; clicks: number; conversions: unknown }[];
    expect((await byCountry()).map((g) => [g.country, g.clicks])).toEqual([[null, 3]]);

    const first = await backfill();
    expect(outcome(first)).toBe('ok');
    expect(first.stdout).toMatch(/\ndimensions: 5\n$/);
    expect(first.stderr).toContain('dimensions   [##############################] 100.0% 5/5');

    // The same clicks through ingestion (another project), for what it would have stored.
    const other = await createProject(t);
    const reference = await linkRow(t, (await createLink(t, other.api_key)).svc_id);
    const referenceIds = { iphone: randomUUID(), ipv6: randomUUID(), bare: randomUUID() };
    await new ClicksService(
      t.app.get(ClicksRepository, { strict: false }),
      new LinkStamps(t.analytics),
      enricher(t),
    ).ingest(
      Object.entries(OLD_CLICKS).map(([name, click]) => ({
        id: referenceIds[name as keyof typeof referenceIds],
        linkId: reference.linkId,
        projectId: reference.projectId,
        clickedAt: Date.now(),
        isBot: false,
        ...click,
      })),
      { resent: true },
    );

    const iphone = await dimensionsOf('clicks', 'click_id', ids.iphone);
    expect(iphone).toMatchObject({
      country: 'GB',
      device: 'mobile',
      browser: 'Safari',
      os: 'iOS',
      referrer_host: 'google.com',
      enriched: 1,
    });
    const ipv6 = await dimensionsOf('clicks', 'click_id', ids.ipv6);
    expect(ipv6).toMatchObject({
      country: 'DE',
      device: 'desktop',
      browser: 'Chrome',
      os: 'Linux',
      referrer_host: null,
      enriched: 1,
    });
    const bare = await dimensionsOf('clicks', 'click_id', ids.bare);
    expect(bare).toEqual({ ...NO_DIMENSIONS, enriched: 1, click: ids.bare });
    for (const name of ['iphone', 'ipv6', 'bare'] as const) {
      const ingested = await dimensionsOf('clicks', 'click_id', referenceIds[name]);
      expect(dimensions(await dimensionsOf('clicks', 'click_id', ids[name]))).toEqual(
        dimensions(ingested),
      );
    }

    // The conversion takes its click's id (from PostgreSQL) and dimensions; the other has none.
    const conversion = await dimensionsOf('conversions', 'conversion_id', pg.id);
    expect(conversion).toMatchObject({ click: ids.iphone, enriched: 1 });
    expect(dimensions(conversion)).toEqual(dimensions(iphone));
    expect(await dimensionsOf('conversions', 'conversion_id', orphan)).toEqual({
      ...Object.fromEntries(CLICK_DIMENSION_COLUMNS.map((c) => [c, null])),
      enriched: 1,
      click: null,
    });

    const groups = await byCountry();
    expect(groups.map((g) => [g.country, g.clicks]).sort()).toEqual(
      [
        ['DE', 1],
        ['GB', 1],
        [null, 1],
      ].sort(),
    );
    expect(groups.find((g) => g.country === 'GB')?.conversions).toMatchObject({
      goal_1: { count: 1, value: 300 },
    });
    expect(groups.find((g) => g.country === null)?.conversions).toMatchObject({
      goal_1: { count: 1, value: 300 },
    });

    // Again: nothing left to describe, no mutation running, no table of the step left.
    const again = await backfill();
    expect(outcome(again)).toBe('ok');
    expect(again.stdout).toMatch(/\nstamps: 0\nchain_stamps: 0\ndimensions: 0\n$/);
    const [left] = await t.analytics.query<{ running: string; tables: string }>(
      `SELECT toString((SELECT countIf(NOT is_done) FROM system.mutations WHERE database = {db:String})) AS running,
              toString((SELECT count() FROM system.tables WHERE database = {db:String} AND name LIKE 'backfill_dimensions%')) AS tables`,
      { db },
    );
    expect(left).toEqual({ running: '0', tables: '0' });
  });
});

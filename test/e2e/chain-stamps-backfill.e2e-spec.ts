import { randomUUID } from 'node:crypto';
import { LINK_STAMP_COLUMNS } from '../../src/analytics/analytics-schema';
import { Params } from '../../src/analytics/analytics-client';
import { LinkStamps } from '../../src/analytics/link-stamps';
import { countStampStateWrite } from '../../src/analytics/stamp-state';
import { ChainStampsBackfill } from '../../src/cli/chain-stamps-backfill';
import { StatsRepository } from '../../src/stats/stats.repository';
import { TestApp, createTestApp } from '../support/app';
import { outcome, runBackfill } from '../support/backfill';
import { linkRow } from '../support/clicks';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { clickRollup, conversionRollup } from '../factories/stats';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * `npm run cli -- analytics:backfill`, its `chain_stamps` step: a store written before chain stamps
 * (events with chain_stamped 0, none of them in `chain_hourly`) is converted so that with_chain
 * reads the kept figures; every statistic answers the same before and after, `chain_hourly` holds
 * each event once under each of its ancestors, and a rerun or a run interrupted anywhere and
 * resumed adds nothing twice.
 */
describe('analytics:backfill chain_stamps', () => {
  let t: TestApp;
  const now = Date.now();
  // Three monthly partitions: the last hour, about 40 and 75 days ago.
  const recent = new Date(Math.floor(now / HOUR) * HOUR - HOUR).toISOString();
  const older = new Date(Math.floor(now / HOUR) * HOUR - 40 * DAY).toISOString();
  const oldest = new Date(Math.floor(now / HOUR) * HOUR - 75 * DAY).toISOString();
  const period = {
    start_date: new Date(now - 100 * DAY).toISOString().slice(0, 10),
    end_date: new Date(now + 2 * DAY).toISOString().slice(0, 10),
  };
  const lastMonth = {
    start_date: new Date(now - 20 * DAY).toISOString().slice(0, 10),
    end_date: period.end_date,
  };

  beforeAll(async () => {
    t = await createTestApp({ redis: false });
  });
  afterAll(() => t.close());

  const db = () => t.analytics.database;
  const get = async (key: string, path: string, params: Record<string, string>): Promise<Body> => {
    const res = await t.http.get(path).query({ v: '3', key, ...params });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body as Body;
  };

  /**
   * Events stamped with their link but not its chain, as `stamps` leaves those of a store before
   * chain stamps: `count` clicks (the last `bots` of them bots), or conversions of `type` worth
   * `value` together.
   */
  async function linkStampedOnly(
    svcId: string,
    table: 'clicks' | 'conversions',
    at: string,
    count: number,
    { bots = 0, type = 'pageview', value = 0 } = {},
  ): Promise<void> {
    const link = await linkRow(t, svcId);
    const line = (await new LinkStamps(t.analytics).of([link.projectId], [link.linkId])).get(
      link.linkId,
    )!;
    const stamp = line.split('\t').slice(0, LINK_STAMP_COLUMNS.length);
    const time = at.replace('T', ' ').replace('Z', '');
    const base =
      table === 'clicks'
        ? ['project_id', 'link_id', 'clicked_at', 'click_id', 'is_bot']
        : ['project_id', 'link_id', 'converted_at', 'conversion_id', 'type', 'value'];
    const rows = Array.from({ length: count }, (_, i) => {
      const own =
        table === 'clicks' ? [i >= count - bots ? '1' : '0'] : [type, i === 0 ? value : 0];
      return [link.projectId, link.linkId, time, randomUUID(), ...own, ...stamp].join('\t');
    });
    await t.analytics.insertTabSeparated(
      table,
      [...base, ...LINK_STAMP_COLUMNS.map(([name]) => name)],
      rows.map((row) => `${row}\n`).join(''),
      rows.length,
    );
  }

  /**
   * A project as a store before chain stamps holds it: A → B → C → D, A → E; F → G; H alone, and
   * their events (addEvents).
   */
  async function seed(): Promise<{ key: string; project: string; ids: Record<string, string> }> {
    const key = (await createProject(t, { conversions: { enabled: true } })).api_key;
    const ids: Record<string, string> = {};
    const links: [string, string, string, string | null][] = [
      ['A', 'twitter', 'u1', null],
      ['B', 'facebook', 'u2', 'A'],
      ['C', 'email', 'u2', 'B'],
      ['D', 'twitter', 'u1', 'C'],
      ['E', 'twitter', 'u3', 'A'],
      ['F', 'email', 'u1', null],
      ['G', 'email', 'u1', 'F'],
      ['H', 'email', 'u3', null],
    ];
    for (const [name, channel, user, parent] of links)
      ids[name] = (
        await createLink(t, key, {
          url: `https://shop.example/${name}`,
          channel,
          user_id: user,
          ...(parent ? { parent: ids[parent] } : {}),
        })
      ).svc_id;
    const project = (await linkRow(t, ids.A)).projectId;
    return { key, project, ids };
  }

  /**
   * The links' clicks (bots) and conversions over three months: without any stamp (`unstamped`,
   * as a store before stamps holds them), but for two clicks of D and a conversion of E stamped
   * with their link only; or all stamped with their link only (`linked`). 54 events, 47 clicks.
   */
  async function addEvents(ids: Record<string, string>, mode: 'unstamped' | 'linked') {
    const clicks: [string, string, number, number][] = [
      ['A', recent, 5, 0],
      ['B', recent, 3, 1],
      ['C', recent, 2, 0],
      ['D', recent, 7, 0],
      ['E', recent, 4, 0],
      ['F', recent, 1, 0],
      ['G', recent, 6, 2],
      ['H', recent, 2, 0],
      ['B', older, 2, 0],
      ['D', older, 3, 1],
      ['G', older, 1, 0],
      ['C', oldest, 4, 0],
      ['E', oldest, 1, 0],
    ];
    const conversions: [string, string, string, number, number][] = [
      ['D', recent, 'goal_1', 1, 100],
      ['C', recent, 'pageview', 2, 0],
      ['G', older, 'goal_2', 1, 50],
      ['B', oldest, 'goal_1', 2, 300],
    ];
    for (const [name, at, humans, bots] of clicks) {
      if (mode === 'unstamped') await clickRollup(t, ids[name], at, humans, bots, false);
      else await linkStampedOnly(ids[name], 'clicks', at, humans + bots, { bots });
    }
    for (const [name, at, type, count, value] of conversions) {
      if (mode === 'unstamped') await conversionRollup(t, ids[name], at, type, count, value, false);
      else await linkStampedOnly(ids[name], 'conversions', at, count, { type, value });
    }
    await linkStampedOnly(ids.D, 'clicks', older, 2);
    await linkStampedOnly(ids.E, 'conversions', recent, 1);
  }

  /** Every with_chain answer the test compares, and chain.json of the roots. */
  async function answers(key: string, ids: Record<string, string>): Promise<unknown[]> {
    const requests: [string, Record<string, string>][] = [
      ['/stats/range.json', { ...period, with_chain: 'true' }],
      ['/stats/range.json', { ...period, group_by: 'channel', with_chain: 'true' }],
      [
        '/stats/range.json',
        {
          ...period,
          group_by: 'user_id',
          pivot: 'channel',
          with_chain: 'true',
          with_conversions: 'true',
        },
      ],
      [
        '/stats/range.json',
        { ...period, group_by: 'channel', with_chain: 'true', with_bots: 'true' },
      ],
      [
        '/stats/range.json',
        { ...period, group_by: 'user_id', with_chain: 'true', channel: 'email' },
      ],
      [
        '/stats/range.json',
        { ...lastMonth, group_by: 'svc_id', with_chain: 'true', with_conversions: 'true' },
      ],
      [
        '/stats/totals.json',
        { ...period, group_by: 'channel', with_chain: 'true', with_conversions: 'true' },
      ],
      [
        '/stats/totals.json',
        { ...period, group_by: 'user_id', pivot: 'channel', with_chain: 'true' },
      ],
      [`/stats/${ids.A}/chain.json`, {}],
      [`/stats/${ids.A}/chain.json`, lastMonth],
      [`/stats/${ids.F}/chain.json`, { with_conversions: 'true' }],
    ];
    const bodies: unknown[] = [];
    for (const [path, params] of requests)
      bodies.push({ path, params, answer: await get(key, path, params) });
    return bodies;
  }

  /** The figures of `chain_hourly` for the project, per (ancestor, hour, generation), summed. */
  const FIGURES = ['clicks', 'bots', 'pageviews', 'g1c', 'g1v', 'g2c', 'g2v'];
  const kept = (project: string) =>
    t.analytics.query<Record<string, string>>(
      `SELECT toString(ancestor_id) AS a, toString(hour) AS h, generation AS g,
              ${FIGURES.map((f) => `toString(sum(${f})) AS s_${f}`).join(', ')}
       FROM ${db()}.chain_hourly WHERE project_id = {project:UUID}
       GROUP BY a, h, g HAVING ${FIGURES.map((f) => `sum(${f}) != 0`).join(' OR ')}
       ORDER BY a, h, g`,
      { project },
    );
  /** The same figures computed from every event of the project and its link's chain now. */
  const fromEvents = (project: string) =>
    t.analytics.query<Record<string, string>>(
      `SELECT toString(ancestor_id) AS a, toString(toStartOfHour(at)) AS h, generation AS g,
              ${FIGURES.map((f) => `toString(sum(${f})) AS s_${f}`).join(', ')}
       FROM (
         SELECT e.at AS at, ch.ancestors AS chain, ${FIGURES.map((f) => `e.${f} AS ${f}`).join(', ')}
         FROM (
           SELECT link_id, clicked_at AS at, toInt64(is_bot = 0) AS clicks, toInt64(is_bot = 1) AS bots,
                  toInt64(0) AS pageviews, toInt64(0) AS g1c, toInt64(0) AS g1v, toInt64(0) AS g2c, toInt64(0) AS g2v
           FROM ${db()}.clicks WHERE project_id = {project:UUID}
           UNION ALL
           SELECT link_id, converted_at, 0, 0, toInt64(type = 'pageview'), toInt64(type = 'goal_1'),
                  if(type = 'goal_1', value, 0), toInt64(type = 'goal_2'), if(type = 'goal_2', value, 0)
           FROM ${db()}.conversions WHERE project_id = {project:UUID}) AS e
         INNER JOIN (SELECT link_id, ancestors FROM ${db()}.link_chains FINAL
                     WHERE project_id = {project:UUID}) AS ch ON ch.link_id = e.link_id)
       ARRAY JOIN chain AS ancestor_id, arrayEnumerate(chain) AS generation
       GROUP BY a, h, g ORDER BY a, h, g`,
      { project },
    );
  const clicksUnder = async (project: string, svcId: string) => {
    const [row] = await t.analytics.query<{ clicks: string; bots: string }>(
      `SELECT toString(sum(clicks)) AS clicks, toString(sum(bots)) AS bots FROM ${db()}.chain_hourly
       WHERE project_id = {project:UUID} AND ancestor_id = {link:UInt64}`,
      { project, link: Number((await linkRow(t, svcId)).linkId) },
    );
    return [Number(row.clicks), Number(row.bots)];
  };
  const chainState = (project: string) =>
    t.app.get(StatsRepository, { strict: false }).chainState([project]);
  /** What a run leaves behind: markers, snapshots, mutations still running. */
  const leftovers = async () => {
    const [row] = await t.analytics.query<{ markers: string; tables: string; running: string }>(
      `SELECT toString((SELECT count() FROM ${db()}.chain_hourly
                        WHERE project_id = toUUID('00000000-0000-0000-0000-000000000000'))) AS markers,
              toString((SELECT count() FROM system.tables
                        WHERE database = {db:String} AND name LIKE 'backfill_chain_stamps%')) AS tables,
              toString((SELECT countIf(NOT is_done) FROM system.mutations WHERE database = {db:String})) AS running`,
      { db: db() },
    );
    return row;
  };
  const NONE_LEFT = { markers: '0', tables: '0', running: '0' };
  const chainStampsLine = (stdout: string) => /^chain_stamps: (\d+)$/m.exec(stdout)?.[1];

  it('converts a store written before chain stamps: the kept figures answer every statistic as before, each event once', async () => {
    const { key, project, ids } = await seed();
    await addEvents(ids, 'unstamped');
    // Its chains as written before they held their link's shared time.
    await t.analytics.command(
      `ALTER TABLE ${db()}.link_chains UPDATE shared_at = NULL WHERE project_id = {project:UUID}
       SETTINGS mutations_sync = 2`,
      { project },
    );
    expect(await chainState(project)).toEqual({ unstamped: true, moved: false });
    expect(await kept(project)).toEqual([]);
    const before = await answers(key, ids);

    const run = await runBackfill(t);
    expect(outcome(run)).toBe('ok');
    // 45 clicks and 6 conversions without a stamp, 2 clicks and 1 conversion with their link's only.
    expect(chainStampsLine(run.stdout)).toBe('54');
    expect(run.stderr).toContain('chain_stamps [##############################] 100.0% 54/54');
    expect(await chainState(project)).toEqual({ unstamped: false, moved: false });
    expect(await answers(key, ids)).toEqual(before);
    // Each event under each of its ancestors, at its generation and hour: as the views add events.
    const figures = await kept(project);
    expect(figures).toEqual(await fromEvents(project));
    // A: the clicks of B (5), C (6), D (10, and 2 stamped with their link only) and E (5); F: G's.
    expect(await clicksUnder(project, ids.A)).toEqual([28, 2]);
    expect(await clicksUnder(project, ids.F)).toEqual([7, 2]);
    expect(await clicksUnder(project, ids.H)).toEqual([0, 0]);
    const [stamped] = await t.analytics.query<{ n: string; roots: string }>(
      `SELECT toString(count()) AS n, toString(countIf(empty(ancestors))) AS roots
       FROM ${db()}.clicks WHERE project_id = {project:UUID} AND chain_stamped = 1`,
      { project },
    );
    expect(stamped).toEqual({ n: '47', roots: '8' }); // A's 5, F's 1 and H's 2: roots, no ancestors
    expect(await leftovers()).toEqual(NONE_LEFT);
    const [chains] = await t.analytics.query<{ n: string; shared: string }>(
      `SELECT toString(count()) AS n, toString(countIf(c.shared_at = l.shared_at)) AS shared
       FROM ${db()}.link_chains AS c FINAL
       INNER JOIN (SELECT link_id, shared_at FROM ${db()}.links FINAL) AS l ON l.link_id = c.link_id
       WHERE c.project_id = {project:UUID}`,
      { project },
    );
    expect(chains).toEqual({ n: '5', shared: '5' });

    // Again: nothing left, nothing added.
    const again = await runBackfill(t);
    expect(chainStampsLine(again.stdout)).toBe('0');
    expect(again.stderr).toContain('chain_stamps [##############################] 100.0% 0/0');
    expect(await kept(project)).toEqual(figures);
    expect(await answers(key, ids)).toEqual(before);
  }, 180_000);

  /** Runs a statement of the store as the backfill does (a write that may change a chain state). */
  const command = (sql: string, params?: Params) =>
    countStampStateWrite(t.analytics, t.analytics.command(sql, params));
  /**
   * `command`, interrupted once at the first statement matching `at`: before it runs, or after it
   * ran (its effect kept, its answer lost: the process stopped there).
   */
  function interruptedOnce(at: RegExp, when: 'before' | 'after') {
    let hit = false;
    return async (sql: string, params?: Params): Promise<void> => {
      const now = !hit && at.test(sql);
      if (now) hit = true;
      if (now && when === 'before') throw new Error(`interrupted before ${at.source}`);
      await command(sql, params);
      if (now && when === 'after') throw new Error(`interrupted after ${at.source}`);
    };
  }
  /** The step alone, in chunks of 2 events (several per partition), its statements through `run`. */
  const step = (run = command) =>
    new ChainStampsBackfill(t.analytics, run, { chunkEvents: 2, pollMs: 50 }).run(() => {});

  it('resumes a run interrupted anywhere, adding each event once, while statistics answer the same', async () => {
    const { key, project, ids } = await seed();
    const interruptions: [RegExp, 'before' | 'after'][] = [
      // A chunk's figures added, its answer lost; resumed by analytics:backfill, whose `stamps`
      // then stamps events of the open run's partitions with their link (finished first).
      [/^\s*INSERT INTO \S+\.chain_hourly/, 'after'],
      // Its snapshot built, not yet the run's.
      [/^RENAME TABLE/, 'before'],
      // A partition's figures added, none of its events stamped.
      [/^\s*ALTER TABLE \S+\s+UPDATE chain_stamped/, 'before'],
      // A partition's mutation submitted.
      [/^\s*ALTER TABLE \S+\s+UPDATE chain_stamped/, 'after'],
      // The run's markers deleted, its snapshot left.
      [/^DELETE FROM/, 'after'],
    ];
    for (const [i, [at, when]] of interruptions.entries()) {
      const where = `${when} ${at.source}`;
      await addEvents(ids, 'linked');
      if (i === 0) {
        // Events without a stamp in the partition the run begins with (the oldest), in each of its chunks.
        for (const name of Object.keys(ids)) await clickRollup(t, ids[name], oldest, 1, 0, false);
        await conversionRollup(t, ids.C, oldest, 'goal_1', 1, 20, false);
      }
      // Written beside the app's own writes: its chain states are read again.
      await countStampStateWrite(t.analytics, Promise.resolve());
      const before = await answers(key, ids);
      await expect(step(interruptedOnce(at, when))).rejects.toThrow('interrupted');
      expect({ where, answers: await answers(key, ids) }).toEqual({ where, answers: before });
      if (i === 0) {
        const run = await runBackfill(t);
        expect(outcome(run)).toBe('ok');
        expect(/^stamps: (\d+)$/m.exec(run.stdout)?.[1]).toBe('9');
      } else if (i === 2) {
        // Nothing stamped yet: the joined form answers; the figures are added, not read.
        expect(await chainState(project)).toEqual({ unstamped: true, moved: false });
        await step();
      } else await step();
      expect({ where, state: await chainState(project) }).toEqual({
        where,
        state: { unstamped: false, moved: false },
      });
      expect({ where, figures: await kept(project) }).toEqual({
        where,
        figures: await fromEvents(project),
      });
      expect({ where, answers: await answers(key, ids) }).toEqual({ where, answers: before });
      expect({ where, left: await leftovers() }).toEqual({ where, left: NONE_LEFT });
    }
    // Each event once: A's descendants' clicks of the five rounds, and those of the first without a stamp.
    expect(await clicksUnder(project, ids.A)).toEqual([5 * 28 + 4, 5 * 2]);
  }, 600_000);
});

import { randomUUID } from 'node:crypto';
import { insertConversionEvents } from '../../src/analytics/conversion-events';
import { LinkStamps, UNSTAMPED } from '../../src/analytics/link-stamps';
import { LinkUpdates } from '../../src/analytics/link-updates';
import { ClickEvent } from '../../src/clicks/click-event';
import { ClicksRepository } from '../../src/clicks/clicks.repository';
import { ClicksService } from '../../src/clicks/clicks.service';
import { StampStates } from '../../src/stats/stamp-states';
import { TestApp, createTestApp } from '../support/app';
import { clicksOf, enricher, linkRow } from '../support/clicks';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/**
 * Stamped events: every click and conversion is stored with its link's version and attributes, and
 * range and totals group the events stamped with their link's latest version by their stamps, the
 * others (not stamped, or stamped before an update) by their link's latest attributes. Whichever
 * way an event is counted, the answers are the ones a join of every event to `links` gives.
 */
describe('stamped events', () => {
  let t: TestApp;
  let key: string;
  let stampStates: StampStates;
  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    key = (await createProject(t)).api_key;
    stampStates = t.app.get(StampStates, { strict: false });
  });
  afterAll(() => t.close());

  const db = () => t.analytics.database;
  const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

  /** Ingestion with stamps read afresh (no stamp kept from before), or with the given stamps. */
  const ingestion = (stamps?: LinkStamps) => {
    const repository = t.app.get(ClicksRepository, { strict: false });
    return new ClicksService(repository, stamps ?? new LinkStamps(t.analytics), enricher(t));
  };
  const unstamped = {
    of: async (_projects: readonly string[], links: Iterable<string>) =>
      new Map([...links].map((l) => [l, UNSTAMPED])),
  } as unknown as LinkStamps;

  const stampsOf = async (linkId: string) =>
    t.analytics.query<{
      link_version: string;
      channel: string | null;
      campaign: string | null;
      tag: string | null;
      tag_2: string[];
      shared_at: string;
    }>(
      `SELECT toString(link_version) AS link_version, channel, campaign, tag, tag_2, toString(shared_at) AS shared_at
       FROM ${db()}.clicks WHERE link_id = {link:UInt64} ORDER BY clicked_at`,
      { link: linkId },
    );
  const mirrorOf = async (linkId: string) =>
    (
      await t.analytics.query<{
        version: string;
        channel: string | null;
        campaign: string | null;
        tag: string | null;
        tag_2: string[];
        shared_at: string;
      }>(
        `SELECT toString(version) AS version, channel, campaign, tag, tag_2, toString(shared_at) AS shared_at FROM ${db()}.links FINAL WHERE link_id = {link:UInt64}`,
        { link: linkId },
      )
    )[0];

  it("stores each click and conversion with its link's version and attributes, as the mirror holds them", async () => {
    const link = await createLink(t, key, {
      channel: 'email',
      campaign: 'stamp-a',
      campaign_description: 'A',
      tag: 'T\ttab',
      tag_2: 'x y',
    });
    const row = await linkRow(t, link.svc_id);
    await ingestion().ingest(clicksOf(row, 2, 1), { resent: true });
    await insertConversionEvents(
      t.analytics,
      new LinkStamps(t.analytics),
      [
        {
          project_id: row.projectId,
          link_id: row.linkId,
          converted_at: new Date(),
          conversion_id: randomUUID(),
          type: 'goal_1',
          value: 5,
        },
      ],
      `test:${randomUUID()}`,
    );
    const mirror = await mirrorOf(row.linkId);
    const expected = {
      link_version: mirror.version,
      channel: 'email',
      campaign: 'stamp-a',
      tag: 'T\ttab',
      tag_2: ['x y'],
      shared_at: mirror.shared_at,
    };
    expect(await stampsOf(row.linkId)).toEqual([expected, expected, expected]);
    const [conversion] = await t.analytics.query<Record<string, unknown>>(
      `SELECT toString(link_version) AS link_version, channel, campaign, tag, tag_2, toString(shared_at) AS shared_at FROM ${db()}.conversions WHERE link_id = {link:UInt64}`,
      { link: row.linkId },
    );
    expect(conversion).toEqual(expected);
    // A link the mirror does not hold (made before it) is stored unstamped: version 0.
    expect(UNSTAMPED.split('\t')[0]).toBe('0');
  });

  it('regroups clicks stamped before an update by the updated attributes, in range and totals, at once', async () => {
    const link = await createLink(t, key, { channel: 'email', tag: 'before-update' });
    const row = await linkRow(t, link.svc_id);
    const kept = new LinkStamps(t.analytics);
    await ingestion(kept).ingest(clicksOf(row, 3), { resent: true });
    await t.http
      .get(`/url/update/${link.svc_id}.json`)
      .query({ v: '3', key, tool: 't', tag: 'after-update' })
      .expect(200);
    // Two more clicks with the stamp kept from before the update (a worker's minute-long cache), two with a fresh one.
    await ingestion(kept).ingest(clicksOf(row, 2, 0, Date.now() - 10_000), { resent: true });
    await ingestion().ingest(clicksOf(row, 2, 0, Date.now() - 20_000), { resent: true });
    const stamped = await stampsOf(row.linkId);
    const versions = new Set(stamped.map((s) => s.link_version));
    expect(versions.size).toBe(2);
    expect(stamped.filter((s) => s.tag === 'before-update')).toHaveLength(5);
    expect(stamped.filter((s) => s.tag === 'after-update')).toHaveLength(2);
    for (const kind of ['range', 'totals']) {
      const res = await t.http
        .get(`/stats/${kind}.json`)
        .query({
          v: '3',
          key,
          start_date: hourAgo(),
          end_date: inAnHour(),
          group_by: 'tag',
          channel: 'email',
        })
        .expect(200);
      const groups = res.body.groups as { tag: string; clicks: number }[];
      expect(groups.find((g) => g.tag === 'after-update')?.clicks).toBe(7);
      expect(groups.find((g) => g.tag === 'before-update')).toBeUndefined();
    }
  });

  it('reuses the pre-check while nothing that could change its answer was written, and reads it again after such a write', async () => {
    const link = await createLink(t, key, { channel: 'fax', tag: 'pre-check' });
    const row = await linkRow(t, link.svc_id);
    const query = jest.spyOn(t.analytics, 'query');
    const prechecks = () =>
      query.mock.calls.filter(([sql]) => sql.includes("SELECT 'updated' AS what")).length;
    const byTag = async () =>
      (
        await t.http
          .get('/stats/range.json')
          .query({
            v: '3',
            key,
            start_date: hourAgo(),
            end_date: inAnHour(),
            group_by: 'tag',
            channel: 'fax',
          })
          .expect(200)
      ).body.groups as unknown[];
    try {
      await ingestion().ingest(clicksOf(row, 2), { resent: true });
      expect(await byTag()).toEqual([expect.objectContaining({ tag: 'pre-check', clicks: 2 })]);
      const before = prechecks();
      // Stamped clicks leave the pre-check's answer as it was: it is not read again.
      await ingestion().ingest(clicksOf(row, 1, 0, Date.now() - 1000), { resent: true });
      expect(await byTag()).toEqual([expect.objectContaining({ tag: 'pre-check', clicks: 3 })]);
      expect(prechecks()).toBe(before);
      // An update lists the link: read again, and the stamped clicks regrouped at once.
      await t.http
        .get(`/url/update/${link.svc_id}.json`)
        .query({ v: '3', key, tool: 't', tag: 'pre-check-2' })
        .expect(200);
      expect(await byTag()).toEqual([expect.objectContaining({ tag: 'pre-check-2', clicks: 3 })]);
      expect(prechecks()).toBe(before + 1);
      // Unstamped clicks: read again, and counted.
      await ingestion(unstamped).ingest(clicksOf(row, 2, 0, Date.now() - 2000), { resent: true });
      expect(await byTag()).toEqual([expect.objectContaining({ tag: 'pre-check-2', clicks: 5 })]);
      expect(prechecks()).toBe(before + 2);
      expect(await byTag()).toEqual([expect.objectContaining({ tag: 'pre-check-2', clicks: 5 })]);
      expect(prechecks()).toBe(before + 2);
    } finally {
      query.mockRestore();
    }
  });

  it("counts unstamped clicks by their link's latest attributes", async () => {
    const link = await createLink(t, key, { channel: 'sms', tag: 'unstamped' });
    const row = await linkRow(t, link.svc_id);
    await ingestion(unstamped).ingest(clicksOf(row, 4), { resent: true });
    await ingestion().ingest(clicksOf(row, 1, 0, Date.now() - 60_000), { resent: true });
    const versions = (await stampsOf(row.linkId)).map((s) => s.link_version);
    expect(versions.filter((v) => v === '0')).toHaveLength(4);
    expect(versions.filter((v) => v !== '0')).toHaveLength(1);
    const res = await t.http
      .get('/stats/range.json')
      .query({
        v: '3',
        key,
        start_date: hourAgo(),
        end_date: inAnHour(),
        group_by: 'tag',
        channel: 'sms',
      })
      .expect(200);
    expect(res.body.groups).toEqual([
      expect.objectContaining({ tag: 'unstamped', clicks: 5, shares: 1 }),
    ]);
  });

  describe.each([
    [
      'with events fresh, stamped before an update and not stamped',
      { unstamped: true, updates: true },
    ],
    ['with fresh and unstamped clicks, no update', { unstamped: true, updates: false }],
    ['with fresh events only', { unstamped: false, updates: false }],
  ])('answers as a join of every event to links would, %s', (_name, fixture) => {
    let project: string;
    let projectId: string;
    beforeAll(async () => {
      project = (await createProject(t)).api_key;
      const channels = ['twitter', 'facebook', 'email', 'sms'];
      // The last link's tag is its own: once it is updated (with updates), no event is left in its group.
      const specs = Array.from({ length: 15 }, (_, i) => ({
        channel: channels[i % 4],
        campaign: `c${i % 3}`,
        campaign_description: `Campaign ${i % 3}`,
        tag: i === 14 ? 'only-moved' : i % 5 === 0 ? '' : `t${i % 4}`,
        user_id: `u${i % 2}`,
        ...(i % 3 === 0 ? { tag_2: `m${i % 2}` } : {}),
      }));
      const links: { svc_id: string; linkId: string; projectId: string }[] = [];
      for (const [i, spec] of specs.entries()) {
        const params: Record<string, string> = Object.fromEntries(
          Object.entries(spec).filter(([, v]) => v !== ''),
        );
        if (i >= 2) params.parent = links[i % 2].svc_id;
        const link = await createLink(t, project, params);
        links.push({ svc_id: link.svc_id, ...(await linkRow(t, link.svc_id)) });
      }
      projectId = links[0].projectId;
      const now = Date.now();
      const conversions: Parameters<typeof insertConversionEvents>[2][number][] = [];
      for (const [i, link] of links.entries()) {
        // Clicks and conversions across the last days: the periods below cut through them.
        const clicks: ClickEvent[] = [];
        for (let d = 0; d < 4; d++)
          clicks.push(
            ...clicksOf(link, 1 + ((i + d) % 3), d % 2, now - d * 86_400_000 - i * 60_000),
          );
        await ingestion(fixture.unstamped && i % 7 === 6 ? unstamped : undefined).ingest(clicks, {
          resent: true,
        });
        for (let c = 0; c < i % 3; c++) {
          conversions.push({
            project_id: link.projectId,
            link_id: link.linkId,
            converted_at: new Date(now - c * 86_400_000 - 1000),
            conversion_id: randomUUID(),
            type: c === 0 ? 'pageview' : `goal_${c}`,
            value: 100 * (i + 1),
          });
        }
      }
      await insertConversionEvents(
        t.analytics,
        new LinkStamps(t.analytics),
        conversions,
        `test:${randomUUID()}`,
      );
      if (!fixture.updates) return;
      // Updated after their events were stamped: regrouped at query time.
      for (const i of [1, 4, 9, 14]) {
        await t.http
          .get(`/url/update/${links[i].svc_id}.json`)
          .query({ v: '3', key: project, tool: 't', channel: 'sms', tag: 'moved' })
          .expect(200);
      }
      // And one updated again, with events stamped by the version in between.
      await ingestion().ingest(clicksOf(links[4], 2, 0, now - 5000), { resent: true });
      await t.http
        .get(`/url/update/${links[4].svc_id}.json`)
        .query({ v: '3', key: project, tool: 't', campaign: 'c0' })
        .expect(200);
    });

    /** The kinds of event in the data: fresh, and as the fixture says, stamped before an update and not stamped. */
    it('has the events it names', async () => {
      const [kinds] = await t.analytics.query<{
        fresh: string;
        outdated: string;
        unstamped: string;
      }>(
        `SELECT toString(countIf(c.link_version != 0 AND (u.link_id = 0 OR u.version = c.link_version))) AS fresh,
                toString(countIf(c.link_version != 0 AND u.link_id != 0 AND u.version != c.link_version)) AS outdated,
                toString(countIf(c.link_version = 0)) AS unstamped
         FROM ${db()}.clicks AS c LEFT JOIN (SELECT link_id, version FROM ${db()}.link_updates FINAL) AS u ON u.link_id = c.link_id
         WHERE c.project_id = {project:UUID}`,
        { project: projectId },
      );
      expect(Number(kinds.fresh)).toBeGreaterThan(0);
      expect(Number(kinds.outdated) > 0).toBe(fixture.updates);
      expect(Number(kinds.unstamped) > 0).toBe(fixture.unstamped);
    });

    const period = () => ({
      start_date: new Date(Date.now() - 2.5 * 86_400_000).toISOString(),
      end_date: inAnHour(),
    });
    const cases: [kind: string, query: Record<string, string>][] = [];
    for (const kind of ['range', 'totals']) {
      cases.push(
        [kind, {}],
        [kind, { with_conversions: 'true' }],
        [kind, { group_by: 'channel' }],
        [kind, { group_by: 'channel', pivot: 'tag', with_zeros: 'true' }],
        [
          kind,
          {
            group_by: 'campaign',
            pivot: 'channel',
            with_conversions: 'true',
            sort_type: 'goal_total_value',
          },
        ],
        [kind, { group_by: 'tag', sort_type: 'shared_at', sort_order: 'asc' }],
        [kind, { group_by: 'tag', with_conversions: 'true' }],
        [kind, { group_by: 'tag', pivot: 'campaign', with_zeros: 'true', with_bots: 'true' }],
        [
          kind,
          { group_by: 'user_id', pivot: 'campaign', pivot_sort_type: 'alpha', channel: 'sms' },
        ],
        [kind, { group_by: 'parent', with_bots: 'true', campaign: 'c1' }],
        [kind, { group_by: 'shared_at_hour_of_day', pivot: 'channel', with_conversions: 'true' }],
        [
          kind,
          { group_by: 'channel', tag: 'moved', with_conversions: 'true', per_page: '2', page: '2' },
        ],
      );
    }
    cases.push(
      ['totals', { group_by: 'channel', tag_2: 'm0' }],
      ['totals', { group_by: 'tag_2', pivot: 'channel' }],
    );

    it.each(cases)('%s %j', async (kind, query) => {
      const ask = async () =>
        (
          await t.http
            .get(`/stats/${kind}.json`)
            .query({ v: '3', key: project, ...period(), ...query })
            .expect(200)
        ).body as Record<string, unknown>;
      const stamped = await ask();
      // No stamp state for any request: every event joined to `links`.
      const joined = jest.spyOn(stampStates, 'forRequest').mockResolvedValue(null);
      try {
        expect(stamped).toEqual(await ask());
      } finally {
        joined.mockRestore();
      }
      // Every case counts clicks, but the moved tag, which only the fixture with updates sets.
      if (fixture.updates || query.tag !== 'moved')
        expect((stamped.totals as { clicks: number }).clicks).toBeGreaterThan(0);
    });
  });
});

describe('settled link updates', () => {
  let t: TestApp;
  let key: string;
  let updates: LinkUpdates;
  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    key = (await createProject(t)).api_key;
    updates = t.app.get(LinkUpdates, { strict: false });
  });
  afterAll(() => t.close());

  /** Whether the link is listed in link_updates (an update not settled). */
  const listed = async (linkId: string) =>
    (
      await t.analytics.query<{ n: string }>(
        `SELECT toString(count()) AS n FROM ${t.analytics.database}.link_updates WHERE link_id = {link:UInt64}`,
        {
          link: linkId,
        },
      )
    )[0].n !== '0';
  const byTag = async () =>
    (
      await t.http
        .get('/stats/range.json')
        .query({
          v: '3',
          key,
          group_by: 'tag',
          start_date: new Date(Date.now() - 3_600_000).toISOString(),
          end_date: new Date(Date.now() + 3_600_000).toISOString(),
        })
        .expect(200)
    ).body.groups as { tag: string; clicks: number }[];
  const update = (svcId: string, tag: string) =>
    t.http.get(`/url/update/${svcId}.json`).query({ v: '3', key, tool: 't', tag }).expect(200);

  it('settles an update once no event of its link carries an earlier version, and a later update unsettles it', async () => {
    const early = await createLink(t, key, { tag: 'first' });
    const late = await createLink(t, key, { tag: 'kept' });
    const [earlyRow, lateRow] = [await linkRow(t, early.svc_id), await linkRow(t, late.svc_id)];
    // `late` has a click of its first version before its update; `early` is updated before any click.
    await new ClicksService(
      t.app.get(ClicksRepository, { strict: false }),
      new LinkStamps(t.analytics),
      enricher(t),
    ).ingest(clicksOf(lateRow, 1), { resent: true });
    await update(early.svc_id, 'second');
    await update(late.svc_id, 'changed');
    // Updated twice: both versions are listed until a merge; settling removes both.
    const twice = await createLink(t, key, { tag: 'twice-1' });
    const twiceRow = await linkRow(t, twice.svc_id);
    await update(twice.svc_id, 'twice-2');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await update(twice.svc_id, 'twice-3');
    // Not yet old enough with the default wait; settled with none.
    expect(await updates.settle()).toBe(0);
    // One update a statement: the three listed are checked in key order.
    expect(await updates.settle(0, 1)).toBe(2);
    expect(await listed(earlyRow.linkId)).toBe(false);
    expect(await listed(twiceRow.linkId)).toBe(false);
    expect(await listed(lateRow.linkId)).toBe(true);
    await new ClicksService(
      t.app.get(ClicksRepository, { strict: false }),
      new LinkStamps(t.analytics),
      enricher(t),
    ).ingest(clicksOf(earlyRow, 2), { resent: true });
    expect(await byTag()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tag: 'second', clicks: 2 }),
        expect.objectContaining({ tag: 'changed', clicks: 1 }),
      ]),
    );
    // Updated again: its earlier clicks carry the settled version, so it is listed again.
    await update(early.svc_id, 'third');
    expect(await listed(earlyRow.linkId)).toBe(true);
    const groups = await byTag();
    expect(groups.find((g) => g.tag === 'third')?.clicks).toBe(2);
    expect(groups.find((g) => g.tag === 'second')).toBeUndefined();
    expect(await updates.settle(0)).toBe(0);
  });
});

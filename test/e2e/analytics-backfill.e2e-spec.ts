import { randomUUID } from 'node:crypto';
import { insertConversionEvents } from '../../src/analytics/conversion-events';
import { LinkStamps } from '../../src/analytics/link-stamps';
import { LinkUpdates } from '../../src/analytics/link-updates';
import { ClicksRepository } from '../../src/clicks/clicks.repository';
import { ClicksService } from '../../src/clicks/clicks.service';
import { TestApp, createTestApp } from '../support/app';
import { outcome, runBackfill } from '../support/backfill';
import { clickCounts, clicksOf, enricher, linkRow, stored } from '../support/clicks';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/**
 * `npm run cli -- analytics:backfill`: what an earlier version kept in PostgreSQL (raw clicks, conversions;
 * links) reaches the analytics store once, however often the command runs or wherever it resumes.
 */
describe('analytics:backfill', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    key = (
      await createProject(t, {
        conversions: { enabled: true, domains: 'all', goal_1_label: 'Signup' },
      })
    ).api_key;
  });
  afterAll(() => t.close());

  const backfill = () => runBackfill(t);

  it('copies the raw clicks and conversions of PostgreSQL once, resuming where it stopped, with a progress bar', async () => {
    const [a, b] = [await createLink(t, key), await createLink(t, key)];
    const [rowA, rowB] = [await linkRow(t, a.svc_id), await linkRow(t, b.svc_id)];
    // What an earlier version wrote: raw clicks (3 + 1 bot on A, 2 on B) and a conversion on A.
    const clicks = [
      ...[0, 1, 2, 3].map((i) => [rowA, '2026-11-02T10:00:00Z', i === 3] as const),
      ...[0, 1].map(() => [rowB, '2026-11-03T10:00:00Z', false] as const),
    ];
    for (const [row, at, bot] of clicks) {
      await t.db.query(
        `INSERT INTO clicks (click_id, clicked_at, link_id, project_id, referrer, user_agent, ip, is_bot)
         VALUES ($1, $2, $3, $4, 'https://r.example/', 'Mozilla/5.0', '192.0.2.0', $5)`,
        [randomUUID(), at, row.linkId, row.projectId, bot],
      );
    }
    await t.db.query(
      `INSERT INTO conversions (project_id, link_id, svc_id, type, value, converted_at, redirection_id)
       VALUES ($1, $2, $3, 'goal_1', 700, '2026-11-02T11:00:00Z', gen_random_uuid())`,
      [rowA.projectId, rowA.linkId, a.svc_id],
    );
    const expected = stored({
      [a.svc_id]: { clicks: 3, bots: 1 },
      [b.svc_id]: { clicks: 2, bots: 0 },
    });
    const totals = async () =>
      (
        await t.http
          .get('/stats/totals.json')
          .query({ v: '3', key, with_conversions: 'true' })
          .expect(200)
      ).body.totals as {
        clicks: number;
        conversions: { goal_1: { count: number; value: number } };
      };
    expect((await totals()).clicks).toBe(0);

    const first = await backfill();
    expect(outcome(first)).toBe('ok');
    // The conversion copied is described from its click, which the store does not hold (`dimensions`).
    expect(first.stdout).toBe(
      'links: 2\nchains: 0\nclicks: 6\nconversions: 1\nstamps: 0\nchain_stamps: 0\ndimensions: 1\n',
    );
    expect(first.stderr).toContain('clicks       [##############################] 100.0% 6/6');
    expect(await clickCounts(t, [a.svc_id, b.svc_id])).toEqual(expected);
    expect(await totals()).toMatchObject({
      clicks: 5,
      conversions: { goal_1: { count: 1, value: 700, label: 'Signup' } },
    });

    // Again: nothing more to copy, nothing counted twice.
    expect((await backfill()).stdout).toBe(
      'links: 2\nchains: 0\nclicks: 6\nconversions: 1\nstamps: 0\nchain_stamps: 0\ndimensions: 0\n',
    );
    // Interrupted before its position was kept: it copies again from the start and counts nothing twice.
    await t.analytics.command(`TRUNCATE TABLE ${t.analytics.database}.backfill_progress`);
    const again = await backfill();
    expect(outcome(again)).toBe('ok');
    expect(again.stdout).toBe(
      'links: 2\nchains: 0\nclicks: 6\nconversions: 1\nstamps: 0\nchain_stamps: 0\ndimensions: 0\n',
    );
    expect(await clickCounts(t, [a.svc_id, b.svc_id])).toEqual(expected);
    expect(await totals()).toMatchObject({
      clicks: 5,
      conversions: { goal_1: { count: 1, value: 700 } },
    });
  });

  it("stamps the events stored before stamps with their link's latest stamp, once", async () => {
    const link = await createLink(t, key, { channel: 'email', tag: 'restamped' });
    const row = await linkRow(t, link.svc_id);
    // Events as a version before stamps stored them: link_version 0 and no attributes.
    const db = t.analytics.database;
    await t.analytics.command(
      `INSERT INTO ${db}.clicks (project_id, link_id, clicked_at, click_id, is_bot)
       SELECT {project:UUID}, {link:UInt64}, now64(3, 'UTC') - toIntervalSecond(number), generateUUIDv4(number), 0 FROM numbers(3)`,
      { project: row.projectId, link: row.linkId },
    );
    await t.analytics.command(
      `INSERT INTO ${db}.conversions (project_id, link_id, converted_at, conversion_id, type, value)
       VALUES ({project:UUID}, {link:UInt64}, now64(3, 'UTC'), generateUUIDv4(), 'goal_1', 40)`,
      { project: row.projectId, link: row.linkId },
    );
    // A click of a link the mirror lacks stays unstamped.
    await t.analytics.command(
      `INSERT INTO ${db}.clicks (project_id, link_id, clicked_at, click_id, is_bot) VALUES ({project:UUID}, 987654321, now64(3, 'UTC'), generateUUIDv4(), 0)`,
      { project: row.projectId },
    );
    const stamps = (table: string) =>
      t.analytics.query<{ link_version: string; channel: string | null; tag: string | null }>(
        `SELECT toString(link_version) AS link_version, channel, tag FROM ${db}.${table} WHERE link_id = {link:UInt64}`,
        { link: row.linkId },
      );
    const [mirror] = await t.analytics.query<{ version: string }>(
      `SELECT toString(version) AS version FROM ${db}.links FINAL WHERE link_id = {link:UInt64}`,
      {
        link: row.linkId,
      },
    );
    const stamped = { link_version: mirror.version, channel: 'email', tag: 'restamped' };

    const first = await backfill();
    expect(outcome(first)).toBe('ok');
    expect(first.stdout).toBe(
      'links: 3\nchains: 0\nclicks: 6\nconversions: 1\nstamps: 4\nchain_stamps: 4\ndimensions: 5\n',
    );
    expect(first.stderr).toContain('stamps       [##############################] 100.0% 5/5');
    expect(first.stderr).toContain('dimensions   [##############################] 100.0% 5/5');
    expect(await stamps('clicks')).toEqual([stamped, stamped, stamped]);
    expect(await stamps('conversions')).toEqual([stamped]);
    const [orphan] = await t.analytics.query<{ n: string }>(
      `SELECT toString(count()) AS n FROM ${db}.clicks WHERE link_id = 987654321 AND link_version = 0`,
    );
    expect(orphan.n).toBe('1');
    const range = await t.http
      .get('/stats/range.json')
      .query({
        v: '3',
        key,
        group_by: 'tag',
        with_conversions: 'true',
        start_date: new Date(Date.now() - 3_600_000).toISOString(),
        end_date: new Date(Date.now() + 60_000).toISOString(),
      })
      .expect(200);
    expect(range.body.groups).toContainEqual(
      expect.objectContaining({
        tag: 'restamped',
        clicks: 3,
        conversions: expect.objectContaining({
          goal_1: expect.objectContaining({ count: 1, value: 40 }),
        }),
      }),
    );
    // Again: only the orphan is left, and it stays; no mutation is left running.
    expect((await backfill()).stdout).toBe(
      'links: 3\nchains: 0\nclicks: 6\nconversions: 1\nstamps: 0\nchain_stamps: 0\ndimensions: 0\n',
    );
    const [running] = await t.analytics.query<{ n: string }>(
      `SELECT toString(countIf(NOT is_done)) AS n FROM system.mutations WHERE database = {db:String}`,
      { db },
    );
    expect(running.n).toBe('0');
  });

  it('restamps the events stamped before their link was updated, so that the update settles, with the same figures', async () => {
    const link = await createLink(t, key, { channel: 'email', tag: 'before-update' });
    const row = await linkRow(t, link.svc_id);
    const db = t.analytics.database;
    // Two clicks and a conversion stamped with the link's first version, then the link is updated.
    const stamps = new LinkStamps(t.analytics);
    await new ClicksService(
      t.app.get(ClicksRepository, { strict: false }),
      stamps,
      enricher(t),
    ).ingest(clicksOf(row, 2), { resent: true });
    await insertConversionEvents(
      t.analytics,
      stamps,
      [
        {
          project_id: row.projectId,
          link_id: row.linkId,
          converted_at: new Date(),
          conversion_id: randomUUID(),
          type: 'goal_1',
          value: 9,
        },
      ],
      `test:${randomUUID()}`,
    );
    await t.http
      .get(`/url/update/${link.svc_id}.json`)
      .query({ v: '3', key, tool: 't', tag: 'after-update' })
      .expect(200);
    const versions = async (table: string) =>
      (
        await t.analytics.query<{ v: string; tag: string | null }>(
          `SELECT toString(link_version) AS v, tag FROM ${db}.${table} WHERE link_id = {link:UInt64}`,
          {
            link: row.linkId,
          },
        )
      ).map((r) => `${r.v} ${r.tag}`);
    const [mirror] = await t.analytics.query<{ version: string }>(
      `SELECT toString(version) AS version FROM ${db}.links FINAL WHERE link_id = {link:UInt64}`,
      {
        link: row.linkId,
      },
    );
    expect(await versions('clicks')).not.toContain(`${mirror.version} after-update`);
    const updates = t.app.get(LinkUpdates, { strict: false });
    const listed = async () =>
      (
        await t.analytics.query<{ n: string }>(
          `SELECT toString(count()) AS n FROM ${db}.link_updates WHERE link_id = {link:UInt64}`,
          { link: row.linkId },
        )
      )[0].n;
    // Its earlier events hold the update on the list: settling leaves it.
    await updates.settle(0);
    expect(await listed()).not.toBe('0');
    const byTag = async () =>
      (
        await t.http
          .get('/stats/range.json')
          .query({
            v: '3',
            key,
            group_by: 'tag',
            with_conversions: 'true',
            start_date: new Date(Date.now() - 3_600_000).toISOString(),
            end_date: new Date(Date.now() + 60_000).toISOString(),
          })
          .expect(200)
      ).body.groups as { tag: string }[];
    const before = (await byTag()).find((g) => g.tag === 'after-update');
    expect(before).toMatchObject({
      clicks: 2,
      conversions: expect.objectContaining({
        goal_1: expect.objectContaining({ count: 1, value: 9 }),
      }),
    });

    const run = await backfill();
    expect(outcome(run)).toBe('ok');
    expect(run.stdout).toMatch(/\nstamps: 3\nchain_stamps: 0\ndimensions: 1\n$/);
    expect(await versions('clicks')).toEqual([
      `${mirror.version} after-update`,
      `${mirror.version} after-update`,
    ]);
    expect(await versions('conversions')).toEqual([`${mirror.version} after-update`]);
    // No event of another version is left: the update settles, and the figures stay.
    await updates.settle(0);
    expect(await listed()).toBe('0');
    expect((await byTag()).find((g) => g.tag === 'after-update')).toEqual(before);
    expect((await backfill()).stdout).toMatch(/\nstamps: 0\nchain_stamps: 0\ndimensions: 0\n$/);
  });
});

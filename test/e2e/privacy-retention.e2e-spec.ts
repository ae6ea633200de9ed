import { RetentionService } from '../../src/privacy/retention.service';
import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';
import { retentionFixture } from '../support/retention';

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

  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    retention = t.app.get(RetentionService, { strict: false });
    retention.firstChunkWaitMs = 0;
  });
  afterAll(() => t.close());

  const db = () => t.analytics.database;
  const { cutoff, count, rawBefore, retiredSum, recordsBefore, fixture, answers } =
    retentionFixture(() => t, now, DAYS);

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

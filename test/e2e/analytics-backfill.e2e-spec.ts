import { randomUUID } from 'node:crypto';
import { EXIT, runCli } from '../../src/cli/cli';
import { TestApp, createTestApp } from '../support/app';
import { clickCounts, linkRow, stored } from '../support/clicks';
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
    key = (await createProject(t, { conversions: { enabled: true, domains: 'all', goal_1_label: 'Signup' } })).api_key;
  });
  afterAll(() => t.close());

  async function backfill(): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const env = {
      DATABASE_URL: t.config.databaseUrl!,
      CHDB_DIR: t.config.chdbDir,
      CLICKHOUSE_DATABASE: t.config.clickhouseDatabase,
      LOG_LEVEL: 'silent',
    };
    const code = await runCli(['analytics:backfill'], { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, { env });
    return { code, stdout, stderr };
  }

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
    const expected = stored({ [a.svc_id]: { clicks: 3, bots: 1 }, [b.svc_id]: { clicks: 2, bots: 0 } });
    const totals = async () =>
      (await t.http.get('/stats/totals.json').query({ v: '3', key, with_conversions: 'true' }).expect(200)).body.totals as {
        clicks: number;
        conversions: { goal_1: { count: number; value: number } };
      };
    expect((await totals()).clicks).toBe(0);

    const first = await backfill();
    expect(first.code).toBe(EXIT.ok);
    expect(first.stdout).toBe('links: 2\nclicks: 6\nconversions: 1\n');
    expect(first.stderr).toContain('clicks       [##############################] 100.0% 6/6');
    expect(await clickCounts(t, [a.svc_id, b.svc_id])).toEqual(expected);
    expect(await totals()).toMatchObject({ clicks: 5, conversions: { goal_1: { count: 1, value: 700, label: 'Signup' } } });

    // Again: nothing more to copy, nothing counted twice.
    expect((await backfill()).stdout).toBe('links: 2\nclicks: 6\nconversions: 1\n');
    // Interrupted before its position was kept: it copies again from the start and counts nothing twice.
    await t.analytics.command(`TRUNCATE TABLE ${t.analytics.database}.backfill_progress`);
    const again = await backfill();
    expect(again.code).toBe(EXIT.ok);
    expect(again.stdout).toBe('links: 2\nclicks: 6\nconversions: 1\n');
    expect(await clickCounts(t, [a.svc_id, b.svc_id])).toEqual(expected);
    expect(await totals()).toMatchObject({ clicks: 5, conversions: { goal_1: { count: 1, value: 700 } } });
  });
});

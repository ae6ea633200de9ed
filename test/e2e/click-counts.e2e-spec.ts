import { clickIdOf } from '../../src/clicks/click-event';
import { chTime } from '../../src/analytics/analytics-client';
import { ClickCountsRepository } from '../../src/redirects/click-counts.repository';
import { TestApp, createTestApp } from '../support/app';

/**
 * The max_clicks count of a link (ClickCounts' read, docs/api.md "Link controls") on the embedded
 * engine: the link's human clicks, but those the reading process recorded since it began counting.
 */
describe('ClickCountsRepository on the analytics store', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ redis: false });
  });
  afterAll(() => t.close());

  const PROJECT = '00000000-0000-4000-8000-0000000000aa';
  const OTHER_PROJECT = '00000000-0000-4000-8000-0000000000bb';
  const NODE = 'aaaaaaaaaaaa';
  const OTHER_NODE = 'bbbbbbbbbbbb';
  const since = Date.UTC(2026, 0, 10, 12);

  it('counts the link’s human clicks, leaving out bots, other links and projects, and this node’s since `since`', async () => {
    let seq = 0;
    const row = (project: string, link: number, at: number, node: string, bot: 0 | 1) =>
      `('${project}', ${link}, '${chTime(at)}', '${clickIdOf(at, seq++, node)}', ${bot})`;
    const rows = [
      // Counted: humans of link 7 before `since` (any node), or of another node after it.
      row(PROJECT, 7, since - 60_000, NODE, 0),
      row(PROJECT, 7, since - 1, NODE, 0),
      row(PROJECT, 7, since + 1, OTHER_NODE, 0),
      row(PROJECT, 7, since + 3_600_000, OTHER_NODE, 0),
      // Left out: this node's own since `since` (its own count holds them), bots, other links and projects.
      row(PROJECT, 7, since, NODE, 0),
      row(PROJECT, 7, since + 5_000, NODE, 0),
      row(PROJECT, 7, since - 60_000, OTHER_NODE, 1),
      row(PROJECT, 8, since - 60_000, OTHER_NODE, 0),
      row(OTHER_PROJECT, 7, since - 60_000, OTHER_NODE, 0),
    ];
    await t.analytics.command(
      `INSERT INTO ${t.analytics.database}.clicks (project_id, link_id, clicked_at, click_id, is_bot)
       VALUES ${rows.join(', ')}`,
    );
    const repository = t.app.get(ClickCountsRepository, { strict: false });
    const count = (request: Partial<Parameters<ClickCountsRepository['countedClicks']>[0]>) =>
      repository.countedClicks({ projectId: PROJECT, linkId: '7', since, node: NODE, ...request });
    expect(await count({})).toBe(4);
    // Another process's read counts this node's clicks too.
    expect(await count({ node: 'cccccccccccc' })).toBe(6);
    expect(await count({ linkId: '8' })).toBe(1);
    expect(await count({ linkId: '9' })).toBe(0);
    expect(await count({ projectId: OTHER_PROJECT })).toBe(1);
  });
});

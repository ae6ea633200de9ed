import { randomUUID } from 'node:crypto';
import { STAMP_COLUMNS } from '../../src/analytics/analytics-schema';
import { AnalyticsLimitError } from '../../src/analytics/analytics-errors';
import { LinkStamps, UNSTAMPED } from '../../src/analytics/link-stamps';
import { TestApp } from '../support/app';
import { connectDomain, createProject } from './projects';

/**
 * The range/totals echo when nothing but key and v is given (docs/api.md, "Statistics": unused
 * values are null).
 */
export const EMPTY_ECHO = {
  start_date: null,
  end_date: null,
  with_metadata: false,
  with_conversions: false,
  with_zeros: false,
  filters: [],
  group_by: null,
  sort_type: null,
  sort_order: null,
  pivot: null,
  pivot_sort_type: null,
  pivot_sort_order: null,
  page: 1,
  per_page: 10,
  offset: 0,
  last_offset: 0,
  total_results: 0,
  groups: [],
};

/** Figures of a total, group or pivot without conversions. */
export function fig(clicks: number, shares: number, clicksPerShare: number) {
  return { clicks, shares, clicks_per_share: clicksPerShare };
}

/** The conversions object (docs/api.md, "Statistics") from the goals that are not zero. */
export function conv(
  pageviews: number,
  goals: Partial<Record<number, [count: number, value: number]>> = {},
  labels: Partial<Record<number, string>> = FIXTURE_LABELS,
) {
  const object: Record<string, unknown> = { pageviews };
  let count = 0;
  let value = 0;
  for (let n = 1; n <= 10; n++) {
    const [c, v] = goals[n] ?? [0, 0];
    object[`goal_${n}`] = { count: c, value: v, label: labels[n] ?? null };
    count += c;
    value += v;
  }
  object.goal_total = { count, value };
  return object;
}

/**
 * Creates a link through url.json (tool pub-bar, channel twitter unless given; `query` is an
 * extra raw query string such as `tag_3[]=a&tag_3[]=b`), then moves its creation time to
 * `createdAt` when given (after any update: updates need a recent link).
 */
export async function statsLink(
  t: TestApp,
  key: string,
  params: Record<string, string>,
  createdAt?: string,
  query = '',
): Promise<string> {
  const res = await t.http
    .get(`/url.json${query ? `?${query}` : ''}`)
    .query({ v: '3', key, tool: 'pub-bar', channel: 'twitter', ...params });
  if (res.status !== 200)
    throw new Error(`url.json answered ${res.status}: ${JSON.stringify(res.body)}`);
  const svcId = (res.body as { svc_id: string }).svc_id;
  if (createdAt !== undefined) await setCreatedAt(t, svcId, createdAt);
  return svcId;
}

export async function setCreatedAt(t: TestApp, svcId: string, createdAt: string): Promise<void> {
  await t.db.query(`UPDATE links SET created_at = $2 WHERE svc_id = $1`, [svcId, createdAt]);
  await t.remirror([svcId]);
}

/** The link's id and project, by svc_id. */
async function linkOf(t: TestApp, svcId: string): Promise<{ id: string; project_id: string }> {
  const { rows } = await t.db.query<{ id: string; project_id: string }>(
    'SELECT id::text AS id, project_id FROM links WHERE svc_id = $1',
    [svcId],
  );
  return rows[0];
}

/** A DateTime64 value of the analytics store. */
function chTime(at: string): string {
  return new Date(at).toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * Clicks of a link at one time (humans, then bots), as the click job writes them into the analytics
 * store: stamped with the link's attributes and chain as the mirror holds them (LinkStamps), unless
 * `stamped` is false (events as a store written before stamps holds them).
 */
export async function clickRollup(
  t: TestApp,
  svcId: string,
  hour: string,
  clicks: number,
  bots = 0,
  stamped = true,
): Promise<void> {
  const link = await linkOf(t, svcId);
  const stamp = stamped ? await stampOf(t, link) : null;
  const rows = Array.from({ length: clicks + bots }, (_, i) =>
    [link.project_id, link.id, chTime(hour), randomUUID(), '\\N', '\\N', '\\N', i < clicks ? 0 : 1]
      .concat(stamp === null ? [] : [stamp])
      .join('\t'),
  );
  await insertRows(t, 'clicks', CLICK_BASE_COLUMNS, rows, stamped);
}

/**
 * `count` conversions of a type (pageview or goal_1 … goal_10) at one time, worth `value` together;
 * stamped as clickRollup's clicks are.
 */
export async function conversionRollup(
  t: TestApp,
  svcId: string,
  hour: string,
  type: string,
  count: number,
  value: number,
  stamped = true,
): Promise<void> {
  const link = await linkOf(t, svcId);
  const stamp = stamped ? await stampOf(t, link) : null;
  const rows = Array.from({ length: count }, (_, i) =>
    [link.project_id, link.id, chTime(hour), randomUUID(), type, i === 0 ? value : 0]
      .concat(stamp === null ? [] : [stamp])
      .join('\t'),
  );
  await insertRows(t, 'conversions', CONVERSION_BASE_COLUMNS, rows, stamped);
}

const CLICK_BASE_COLUMNS = [
  'project_id',
  'link_id',
  'clicked_at',
  'click_id',
  'referrer',
  'user_agent',
  'ip',
  'is_bot',
];
const CONVERSION_BASE_COLUMNS = [
  'project_id',
  'link_id',
  'converted_at',
  'conversion_id',
  'type',
  'value',
];

/**
 * The link's stamp as the event writers take it (LinkStamps: a TabSeparated line); unstamped when
 * the app's store refuses the read (a test of statement limits far below any stamp's read).
 */
async function stampOf(t: TestApp, link: { id: string; project_id: string }): Promise<string> {
  try {
    const stamps = await new LinkStamps(t.analytics).of([link.project_id], [link.id]);
    return stamps.get(link.id)!;
  } catch (error) {
    if (error instanceof AnalyticsLimitError) return UNSTAMPED;
    throw error;
  }
}

/** TabSeparated rows into the store, with the stamp's columns when stamped. */
async function insertRows(
  t: TestApp,
  table: string,
  columns: string[],
  rows: string[],
  stamped: boolean,
): Promise<void> {
  const names = stamped ? [...columns, ...STAMP_COLUMNS.map(([name]) => name)] : columns;
  await t.analytics.insertTabSeparated(
    table,
    names,
    rows.map((row) => `${row}\n`).join(''),
    rows.length,
  );
}

export const FIXTURE_LABELS: Partial<Record<number, string>> = { 1: 'Signup', 2: 'Purchase' };

export interface StatsFixture {
  key: string;
  /** The project user ann@example.com: her sharer_id; her username is `ann`. */
  sharerId: string;
  /** svc_id of links A … E. */
  ids: Record<'A' | 'B' | 'C' | 'D' | 'E', string>;
}

/**
 * One project (goal labels Signup, Purchase; the user ann; the domain go.example) with five links.
 * Range period 2026-11-01 … 2026-11-08; "in" = clicks inside it, "out" = after it.
 *
 * | link | created (shared)        | channel       | tool      | campaign | tag | user_id | sharer | other                                 | clicks (bots)        | conversions                    |
 * |------|-------------------------|---------------|-----------|----------|-----|---------|--------|---------------------------------------|----------------------|--------------------------------|
 * | A    | 11-02 Mon 10:00 (h/w 10)| twitter       | pub-bar   | spring   | x   | u1      | ann    | service_userid twitter:100, postid twitter:9001, url /a, notes | in 4 (+1), out 6 | 11-02: pageview 3; goal_1 2/500; out (11-20): goal_5 1/50 |
 * | B    | 11-03 Tue 09:00 (h/w 33)| twitter       | pub-bar   | fall     | y   | u2      | -      | parent A, service_userid twitter:100, postid twitter:9002, url /b | in 1 | 11-03: goal_1 1/200 |
 * | C    | 11-05 Thu 15:00 (h/w 87)| email         | Mail-Form | spring   | x   | -       | ann    | domain go.example, url /c             | in 3 (+2)            | 11-05: goal_2 1/100            |
 * | D    | 10-20 Tue 08:00 (h/w 32)| email         | Mail-Form | -        | z   | u1      | -      | url /d (shared before the period)     | in 5                 | -                              |
 * | E    | 11-06 Fri 12:00 (h/w 108)| facebook-post| pub-bar   | spring   | -   | -       | -      | url /a                                | -                    | -                              |
 *
 * Tool pub-bar: label pub-bar, application pub; Mail-Form: label mail-form, application mail.
 */
export async function buildStatsFixture(t: TestApp): Promise<StatsFixture> {
  const project = await createProject(t, {
    conversions: {
      enabled: true,
      domains: 'all',
      goal_1_label: 'Signup',
      goal_2_label: 'Purchase',
    },
    sharers: ['ann@example.com'],
  });
  const key = project.api_key;
  await connectDomain(t, 'go.example', [key]);
  const { rows } = await t.db.query<{ id: string }>(
    `SELECT id FROM users WHERE email = 'ann@example.com'`,
  );
  const sharerId = rows[0].id;
  const A = await statsLink(
    t,
    key,
    {
      url: 'https://example.com/a',
      campaign: 'spring',
      campaign_name: 'Spring Sale',
      campaign_description: 'Spring sale',
      tag: 'x',
      user_id: 'u1',
      user_id_username: 'ann_u',
      user_id_icon_url: 'https://img.example/u1.png',
      user_id_profile_url: 'https://social.example/u1',
      sharer_id: sharerId,
      service_userid: 'twitter:100',
      service_postid: 'twitter:9001',
      notes: 'note A',
    },
    '2026-11-02T10:00:00Z',
  );
  const B = await statsLink(
    t,
    key,
    {
      url: 'https://example.com/b',
      campaign: 'fall',
      campaign_description: 'Fall sale',
      tag: 'y',
      user_id: 'u2',
      user_id_username: 'bob_u',
      parent: A,
      service_userid: 'twitter:100',
      service_postid: 'twitter:9002',
    },
    '2026-11-03T09:00:00Z',
  );
  const C = await statsLink(
    t,
    key,
    {
      url: 'https://example.com/c',
      channel: 'email',
      tool: 'Mail-Form',
      campaign: 'spring',
      tag: 'x',
      sharer_id: sharerId,
      domain: 'go.example',
    },
    '2026-11-05T15:00:00Z',
  );
  const D = await statsLink(
    t,
    key,
    { url: 'https://example.com/d', channel: 'email', tool: 'Mail-Form', tag: 'z', user_id: 'u1' },
    '2026-10-20T08:00:00Z',
  );
  const E = await statsLink(
    t,
    key,
    { url: 'https://example.com/a', channel: 'facebook-post', campaign: 'spring' },
    '2026-11-06T12:00:00Z',
  );
  await clickRollup(t, A, '2026-11-02T11:00:00Z', 4, 1);
  await clickRollup(t, A, '2026-11-10T11:00:00Z', 6);
  await clickRollup(t, B, '2026-11-03T10:00:00Z', 1);
  await clickRollup(t, C, '2026-11-05T16:00:00Z', 3, 2);
  await clickRollup(t, D, '2026-11-04T09:00:00Z', 5);
  await conversionRollup(t, A, '2026-11-02T12:00:00Z', 'pageview', 3, 0);
  await conversionRollup(t, A, '2026-11-02T12:00:00Z', 'goal_1', 2, 500);
  await conversionRollup(t, B, '2026-11-03T10:00:00Z', 'goal_1', 1, 200);
  await conversionRollup(t, C, '2026-11-05T16:00:00Z', 'goal_2', 1, 100);
  await conversionRollup(t, A, '2026-11-20T00:00:00Z', 'goal_5', 1, 50);
  return { key, sharerId, ids: { A, B, C, D, E } };
}

/** The range period of the fixture. */
export const NOVEMBER = { start_date: '2026-11-01', end_date: '2026-11-08' } as const;

interface AggregateBody {
  groups: (Record<string, unknown> & { pivots?: Record<string, unknown>[] })[];
}

/** The grouped values of a range/totals response, in order. */
export function groupValues(body: unknown, field: string): unknown[] {
  return (body as AggregateBody).groups.map((group) => group[field]);
}

/** The pivot values of each group of a range/totals response, in order. */
export function pivotValues(body: unknown, field: string): unknown[][] {
  return (body as AggregateBody).groups.map((group) =>
    (group.pivots ?? []).map((pivot) => pivot[field]),
  );
}

import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { ClickEvent } from '../../src/clicks/click-event';
import { ClickEnricher } from '../../src/enrichment/click-enricher';
import { TestApp } from './app';
import { eventually } from './eventually';

export const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
export const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

export interface ClickCounts {
  clicks: number;
  bots: number;
}

/**
 * Counted clicks of links (by svc_id) from the analytics store's hourly rollups, and the raw clicks
 * it stored for them.
 */
export async function clickCounts(
  t: Pick<TestApp, 'db' | 'analytics'>,
  svcIds: string[],
): Promise<Record<string, ClickCounts & { raw: number }>> {
  const { rows: links } = await t.db.query<{ id: string; svc_id: string }>(
    'SELECT id::text AS id, svc_id FROM links WHERE svc_id = ANY($1::text[])',
    [svcIds],
  );
  const ids = links.map((l) => Number(l.id));
  const db = t.analytics.database;
  const figures = await t.analytics.query<{
    link_id: string;
    clicks: string;
    bots: string;
    raw: string;
  }>(
    `SELECT toString(link_id) AS link_id, sum(clicks) AS clicks, sum(bots) AS bots, sum(raw) AS raw FROM (
       SELECT link_id, countIf(is_bot = 0) AS clicks, countIf(is_bot = 1) AS bots, 0 AS raw
       FROM ${db}.clicks WHERE link_id IN {ids:Array(UInt64)} GROUP BY link_id
       UNION ALL
       SELECT link_id, 0, 0, count() FROM ${db}.clicks WHERE link_id IN {ids:Array(UInt64)} GROUP BY link_id)
     GROUP BY link_id`,
    { ids },
  );
  const byId = new Map(figures.map((f) => [f.link_id, f]));
  return Object.fromEntries(
    links.map((l) => {
      const f = byId.get(l.id);
      return [
        l.svc_id,
        { clicks: Number(f?.clicks ?? 0), bots: Number(f?.bots ?? 0), raw: Number(f?.raw ?? 0) },
      ];
    }),
  );
}

/**
 * Waits until every link has at least its expected clicks in the rollups, then returns what is
 * stored: the caller asserts the exact values, so a double count shows.
 */
export function waitForClicks(
  t: Pick<TestApp, 'db' | 'analytics'>,
  expected: Record<string, ClickCounts>,
  timeoutMs = 15_000,
): Promise<Record<string, ClickCounts & { raw: number }>> {
  return eventually(
    `the clicks of ${Object.keys(expected).join(', ')}`,
    async () => {
      const counts = await clickCounts(t, Object.keys(expected));
      const reached = Object.entries(expected).every(
        ([svcId, want]) =>
          (counts[svcId]?.clicks ?? 0) >= want.clicks && (counts[svcId]?.bots ?? 0) >= want.bots,
      );
      if (!reached) throw new Error(`stored so far: ${JSON.stringify(counts)}`);
      return counts;
    },
    timeoutMs,
  );
}

/** What a rollup row set should read once `expected` arrived: raw = clicks + bots. */
export function stored(
  expected: Record<string, ClickCounts>,
): Record<string, ClickCounts & { raw: number }> {
  return Object.fromEntries(
    Object.entries(expected).map(([svcId, c]) => [svcId, { ...c, raw: c.clicks + c.bots }]),
  );
}

/** Clicks spilled to DATA_DIR/spool (one JSON line each), by file. */
export function spooledClicks(dataDir: string): { files: string[]; clicks: { id: string }[] } {
  const dir = path.join(dataDir, 'spool');
  let files: string[];
  try {
    files = readdirSync(dir).sort();
  } catch {
    return { files: [], clicks: [] };
  }
  const clicks = files
    .filter((f) => f.endsWith('.ndjson'))
    .flatMap((f) => readFileSync(path.join(dir, f), 'utf8').split('\n'))
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { id: string });
  return { files, clicks };
}

/** A link's id and project, by svc_id, as clicks carry them. */
export async function linkRow(
  t: TestApp,
  svcId: string,
): Promise<{ linkId: string; projectId: string }> {
  const { rows } = await t.db.query<{ id: string; project_id: string }>(
    'SELECT id, project_id FROM links WHERE svc_id = $1',
    [svcId],
  );
  return { linkId: String(rows[0].id), projectId: rows[0].project_id };
}

/** Clicks of a link as a redirect records them (new ids): humans first, then bots, a second apart back from `at`. */
export function clicksOf(
  link: { linkId: string; projectId: string },
  humans: number,
  bots = 0,
  at = Date.now(),
): ClickEvent[] {
  return Array.from({ length: humans + bots }, (_, i) => ({
    id: randomUUID(),
    linkId: link.linkId,
    projectId: link.projectId,
    clickedAt: at - i * 1000,
    referrer: null,
    userAgent: i < humans ? BROWSER : GOOGLEBOT,
    ip: '192.0.2.0',
    isBot: i >= humans,
  }));
}

/** A raw click as the analytics store holds it. */
export interface StoredClick {
  id: string;
  clicked_at: Date;
  link_id: string;
  project_id: string;
  referrer: string | null;
  user_agent: string | null;
  ip: string | null;
  is_bot: boolean;
}

/** The raw clicks of the analytics store (of one link when given), in time order. */
export async function storedClicks(
  t: Pick<TestApp, 'analytics'>,
  linkId?: string,
): Promise<StoredClick[]> {
  const rows = await t.analytics.query<
    Omit<StoredClick, 'clicked_at' | 'is_bot' | 'link_id' | 'project_id'> & {
      clicked_at: string;
      is_bot: number;
      link: string;
      project: string;
    }
  >(
    `SELECT toString(click_id) AS id, clicked_at, toString(link_id) AS link, toString(project_id) AS project,
            referrer, user_agent, ip, is_bot
     FROM ${t.analytics.database}.clicks ${linkId === undefined ? '' : 'WHERE link_id = {link:UInt64}'}
     ORDER BY clicked_at, click_id`,
    linkId === undefined ? {} : { link: Number(linkId) },
  );
  return rows.map(({ link, project, ...r }) => ({
    id: r.id,
    clicked_at: new Date(`${r.clicked_at.replace(' ', 'T')}Z`),
    link_id: link,
    project_id: project,
    referrer: r.referrer,
    user_agent: r.user_agent,
    ip: r.ip,
    is_bot: Number(r.is_bot) === 1,
  }));
}

/** A link's clicks per hour as the hourly projection of the analytics store's clicks sums them. */
export async function hourlyClicks(
  t: Pick<TestApp, 'analytics'>,
  linkId: string,
): Promise<{ hour: Date; clicks: number; bot_clicks: number }[]> {
  const rows = await t.analytics.query<{ hour: string; clicks: string; bot_clicks: string }>(
    `SELECT toStartOfHour(clicked_at) AS hour, countIf(is_bot = 0) AS clicks, countIf(is_bot = 1) AS bot_clicks
     FROM ${t.analytics.database}.clicks WHERE link_id = {link:UInt64} GROUP BY hour ORDER BY hour`,
    { link: Number(linkId) },
  );
  return rows.map((r) => ({
    hour: new Date(`${r.hour.replace(' ', 'T')}Z`),
    clicks: Number(r.clicks),
    bot_clicks: Number(r.bot_clicks),
  }));
}

/** The app's click enricher, for a ClicksService a test builds itself. */
export function enricher(t: Pick<TestApp, 'app'>): ClickEnricher {
  return t.app.get(ClickEnricher, { strict: false });
}

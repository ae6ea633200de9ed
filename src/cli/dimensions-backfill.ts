import { DataSource } from 'typeorm';
import { AnalyticsClient, Params } from '../analytics/analytics-client';
import { CLICK_DIMENSION_COLUMNS, ClickDimension } from '../analytics/analytics-schema';
import { ClickEnricher, NO_AGENT, clickDimensions } from '../enrichment/click-enricher';

/** Distinct values (addresses, user agents, referrers) read, described and loaded at a time. */
const VALUES_CHUNK = 50_000;
/** Conversions whose click is looked up in PostgreSQL at a time. */
const CONVERSIONS_CHUNK = 5_000;
/** How often the step looks at its mutations. */
const POLL_MS = 500;
/** What every table of the step is named after, and what finds its mutations. */
const PREFIX = 'backfill_dimensions';

/**
 * A part of a click's dimensions described from one column of `clicks` (ip, user_agent or
 * referrer), the way ingestion describes it: a null value is the empty string (which the enricher
 * describes as it describes null: no place, NO_AGENT's `other` device, no referring host).
 */
interface Lookup {
  /** The Join table's name after PREFIX. */
  name: string;
  column: 'ip' | 'user_agent' | 'referrer';
  dimensions: readonly ClickDimension[];
  describe(values: string[]): Promise<Record<ClickDimension, string | null>[]>;
}

/**
 * The `dimensions` step of analytics:backfill: describes the clicks and conversions stored before
 * click dimensions (`enriched` 0), as ingestion would have from what they kept (the user agent, the
 * referrer and the address as CLICK_IP stored it). Each distinct address, user agent and referrer
 * of those clicks is described once (ClickEnricher), a chunk at a time, into a Join-engine table
 * keyed by a hash of the value (so that any bytes match, and millions of addresses stay small); one
 * mutation of `clicks` then sets their dimensions and `enriched` 1. Conversions without `click_id`
 * take their click's id from PostgreSQL (`redirection_id`), then every not enriched conversion
 * takes the dimensions of its click (none when the store does not hold it) and `enriched` 1, in
 * one mutation of `conversions`. The tables are made for the step and dropped after it; a rerun
 * replaces the mutations an interrupted run left (rows already described are not touched: every
 * mutation is `WHERE enriched = 0`), and finds nothing left once done.
 */
export class DimensionsBackfill {
  constructor(
    private readonly analytics: AnalyticsClient,
    private readonly dataSource: DataSource,
    private readonly enricher: ClickEnricher,
    /** Runs a statement of the store (BackfillService.command). */
    private readonly command: (sql: string, params?: Params) => Promise<void>,
  ) {}

  private readonly lookups: readonly Lookup[] = [
    {
      name: 'places',
      column: 'ip',
      dimensions: ['country', 'region', 'city'],
      describe: async (ips) => {
        await this.enricher.ready(ips);
        const { places } = this.enricher.describe({ ips, agents: [], referrers: [] });
        return places.map((place) => clickDimensions(place, NO_AGENT, null));
      },
    },
    {
      name: 'agents',
      column: 'user_agent',
      dimensions: ['device', 'browser', 'os'],
      describe: (agents) =>
        Promise.resolve(
          this.enricher
            .describe({ ips: [], agents, referrers: [] })
            .agents.map((agent) => clickDimensions(null, agent, null)),
        ),
    },
    {
      name: 'referrers',
      column: 'referrer',
      dimensions: ['referrer_host'],
      describe: (referrers) =>
        Promise.resolve(
          this.enricher
            .describe({ ips: [], agents: [], referrers })
            .referrers.map((host) => clickDimensions(null, NO_AGENT, host)),
        ),
    },
  ];

  /** Describes the events not enriched; returns how many it described (`onProgress` as it goes). */
  async run(onProgress: (done: number, total: number) => void): Promise<number> {
    const before = await this.left();
    const total = before.clicks + before.conversions;
    onProgress(0, total);
    if (total === 0) {
      await this.dropTables(); // left by a run stopped after its mutations
      return 0;
    }
    // A run stopped earlier may have left its mutations waiting for these tables: they are replaced.
    await this.command(
      `KILL MUTATION WHERE database = {db:String} AND command LIKE '%${PREFIX}%' SYNC`,
      { db: this.analytics.database },
    );
    await this.dropTables();
    const progress = async () => {
      const left = await this.left();
      onProgress(Math.max(0, total - left.clicks - left.conversions), total);
    };
    if (before.clicks > 0) {
      await this.describeClicks();
      await this.waitForMutations(progress);
    }
    if (before.conversions > 0) {
      await this.describeConversions();
      await this.waitForMutations(progress);
    }
    await this.dropTables();
    const after = await this.left();
    onProgress(total, total);
    return Math.max(0, total - after.clicks - after.conversions);
  }

  private table(name: string): string {
    return `${this.analytics.database}.${PREFIX}_${name}`;
  }

  /** The key of a value of `column` in its Join table (a null value is the empty string). */
  private static key(column: string): string {
    return `sipHash64(ifNull(${column}, ''))`;
  }

  /**
   * Loads each Lookup's table, then mutates the clicks not enriched whose three values are in the
   * tables (`known`: a click stored after its values were read waits for the next run).
   */
  private async describeClicks(): Promise<void> {
    const assignments: string[] = [];
    const known: string[] = [];
    for (const lookup of this.lookups) {
      const table = this.table(lookup.name);
      await this.command(
        `CREATE TABLE ${table} (
           key UInt64, known UInt8, ${lookup.dimensions.map((d) => `${d} Nullable(String)`).join(', ')}
         ) ENGINE = Join(ANY, LEFT, key)`,
      );
      await this.load(lookup);
      const key = DimensionsBackfill.key(lookup.column);
      known.push(`joinGet('${table}', 'known', ${key}) = 1`);
      for (const d of lookup.dimensions)
        assignments.push(`${d} = joinGet('${table}', '${d}', ${key})`);
    }
    await this.command(
      `ALTER TABLE ${this.analytics.database}.clicks
       UPDATE ${assignments.join(', ')}, enriched = 1
       WHERE enriched = 0 AND ${known.join(' AND ')}`,
    );
  }

  /** Reads the distinct values of the lookup's column among the clicks not enriched, in key order, a chunk at a time, and loads them described. */
  private async load(lookup: Lookup): Promise<void> {
    let from = 0n;
    for (;;) {
      const rows = await this.analytics.query<{ key: string; value: string }>(
        `SELECT toString(${DimensionsBackfill.key(lookup.column)} AS k) AS key, any(ifNull(${lookup.column}, '')) AS value
         FROM ${this.analytics.database}.clicks
         WHERE enriched = 0 AND k >= {from:UInt64}
         GROUP BY k ORDER BY k LIMIT {limit:UInt32}`,
        { from: from.toString(), limit: VALUES_CHUNK },
      );
      if (rows.length === 0) return;
      const described = await lookup.describe(rows.map((r) => r.value));
      await this.analytics.insert(
        `${PREFIX}_${lookup.name}`,
        rows.map((r, i) => ({
          key: r.key,
          known: 1,
          ...Object.fromEntries(lookup.dimensions.map((d) => [d, described[i][d]])),
        })),
      );
      const last = BigInt(rows[rows.length - 1].key);
      if (rows.length < VALUES_CHUNK || last === 2n ** 64n - 1n) return;
      from = last + 1n;
    }
  }

  /**
   * The conversions not enriched: those without `click_id` take PostgreSQL's (their
   * `redirection_id`, through a Join table by conversion id), then every one takes its click's
   * dimensions (a Join table by click id, made from the clicks of those conversions), and
   * `enriched` 1 whether its click was found or not.
   */
  private async describeConversions(): Promise<void> {
    const db = this.analytics.database;
    const pairs = this.table('conversion_clicks');
    await this.command(
      `CREATE TABLE ${pairs} (conversion_id String, click_id Nullable(UUID)) ENGINE = Join(ANY, LEFT, conversion_id)`,
    );
    await this.loadConversionClicks();
    const clickId = `coalesce(click_id, joinGet('${pairs}', 'click_id', toString(conversion_id)))`;
    const clicks = this.table('clicks');
    await this.command(
      `CREATE TABLE ${clicks} (
         click_id String, ${CLICK_DIMENSION_COLUMNS.map((d) => `${d} Nullable(String)`).join(', ')}
       ) ENGINE = Join(ANY, LEFT, click_id)`,
    );
    await this.command(
      `INSERT INTO ${clicks}
       SELECT toString(click_id), ${CLICK_DIMENSION_COLUMNS.join(', ')} FROM ${db}.clicks
       WHERE enriched = 1 AND click_id IN (SELECT ${clickId} FROM ${db}.conversions WHERE enriched = 0)`,
    );
    const key = `ifNull(toString(${clickId}), '')`;
    const assignments = CLICK_DIMENSION_COLUMNS.map(
      (d) => `${d} = joinGet('${clicks}', '${d}', ${key})`,
    );
    await this.command(
      `ALTER TABLE ${db}.conversions
       UPDATE click_id = ${clickId}, ${assignments.join(', ')}, enriched = 1
       WHERE enriched = 0`,
    );
  }

  /** The click ids PostgreSQL holds for the conversions not enriched without one, into their Join table. */
  private async loadConversionClicks(): Promise<void> {
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const ids = (
        await this.analytics.query<{ id: string }>(
          `SELECT DISTINCT toString(conversion_id) AS id, conversion_id FROM ${this.analytics.database}.conversions
           WHERE enriched = 0 AND click_id IS NULL AND conversion_id > {after:UUID}
           ORDER BY conversion_id LIMIT {limit:UInt32}`,
          { after, limit: CONVERSIONS_CHUNK },
        )
      ).map((r) => r.id);
      if (ids.length === 0) return;
      const pairs = await this.dataSource.query<{ conversion_id: string; click_id: string }[]>(
        `SELECT id::text AS conversion_id, redirection_id::text AS click_id FROM conversions
         WHERE id = ANY(string_to_array($1, ',')::uuid[]) AND redirection_id IS NOT NULL`,
        [ids.join(',')],
      );
      await this.analytics.insert(`${PREFIX}_conversion_clicks`, pairs);
      if (ids.length < CONVERSIONS_CHUNK) return;
      after = ids[ids.length - 1];
    }
  }

  /** Polls the step's mutations until none runs; throws the reason of a failed one. */
  private async waitForMutations(progress: () => Promise<void>): Promise<void> {
    for (;;) {
      const [pending] = await this.analytics.query<{ running: string; failed: string }>(
        `SELECT toString(countIf(NOT is_done)) AS running, anyIf(latest_fail_reason, latest_fail_reason != '') AS failed
         FROM system.mutations WHERE database = {db:String} AND command LIKE '%${PREFIX}%'`,
        { db: this.analytics.database },
      );
      if (pending.failed) throw new Error(`describing the events failed: ${pending.failed}`);
      await progress();
      if (Number(pending.running) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** The clicks and conversions not enriched. */
  private async left(): Promise<{ clicks: number; conversions: number }> {
    const db = this.analytics.database;
    const [row] = await this.analytics.query<{ clicks: string; conversions: string }>(
      `SELECT toString((SELECT count() FROM ${db}.clicks WHERE enriched = 0)) AS clicks,
              toString((SELECT count() FROM ${db}.conversions WHERE enriched = 0)) AS conversions`,
    );
    return { clicks: Number(row.clicks), conversions: Number(row.conversions) };
  }

  private async dropTables(): Promise<void> {
    for (const name of [...this.lookups.map((l) => l.name), 'conversion_clicks', 'clicks']) {
      await this.command(`DROP TABLE IF EXISTS ${this.table(name)}`);
    }
  }
}

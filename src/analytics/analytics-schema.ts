import { GOALS } from '../common/goals';
import { retiredHorizonSchema, retiredSchema } from './retired-schema';

/**
 * The analytics store's tables (ClickHouse SQL), created at start when missing. Every statement is
 * idempotent (IF NOT EXISTS), so every process may run them; a change of a table is a new statement
 * appended here, never an edit of one that has run.
 *
 * - `clicks`: one row per click, sorted by (project, link, time): a link's intervals and latest click
 *   and a conversion's click are reads of one key range. Monthly partitions. Two aggregate
 *   projections, stored inside each part (so written in the same step as the clicks, and dropped
 *   with them): `hourly`, clicks and bot clicks per (project, hour, link), which range and range
 *   intervals read for the period's hours; `totals`, per (project, link), which totals reads.
 *   ClickHouse picks a projection when a query's filters and aggregates are made of its columns
 *   (`toStartOfHour(clicked_at)`, `countIf(is_bot = 0)`, `countIf(is_bot = 1)`).
 * - `conversions`: one row per conversion (few beside clicks), sorted like clicks.
 * - `links`: a mirror of each link's statistics attributes, one row per version
 *   (ReplacingMergeTree by `version`); queries read its latest version (FINAL) and join it to the
 *   figures by link id, so an update of a link shows in every statistic.
 * - Appended later, on `links`: the attributes with few distinct values (domain, channel,
 *   service, tool, application, campaign, tag and the multi-value tags) become LowCardinality, a
 *   dictionary per part: range and totals join and group by their dictionary positions rather
 *   than by strings. (ALTER … MODIFY COLUMN: a no-op once done; on a filled table a mutation that
 *   rewrites those columns once, in the background, while reads convert on the fly.) A minmax
 *   index of `shared_at` per granule lets totals and the share counts skip the granules of links
 *   shared outside the period (links are sorted by id, which grows with their creation); parts
 *   written before the index was added gain it when they are merged.
 *
 * - Appended later, stamped events: every click and conversion carries its link's stamp
 *   (LINK_STAMP_COLUMNS: the `links` version it was read from and the attributes statistics group
 *   and filter by, written by the same insert as the event). Two aggregate projections of clicks
 *   over the stamps replace `hourly` and `totals`: `stamped_hourly` (project, hour, link, version,
 *   attributes), which range and range intervals read for the period's hours, and `stamped_totals`
 *   (project, shared time, link, version, attributes), which totals reads for the links shared in
 *   the period; both count humans and bots and keep the latest shared time, so range and totals
 *   group them by any stamped attribute without joining `links`. `link_updates` lists the links
 *   whose latest version is not their creation's (an update): an event stamped with another
 *   version of such a link is grouped by the link's latest attributes instead (StatsRepository),
 *   until no event carries another version (settled: LinkUpdates).
 *
 * Inserts into clicks and conversions carry a deduplication token (their job's clicks, the
 * conversion's id): within the last 10,000 inserts, the same token is skipped.
 */
export function analyticsSchema(db: string): string[] {
  const dedup = 'non_replicated_deduplication_window = 10000';
  return [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
    `CREATE TABLE IF NOT EXISTS ${db}.clicks (
       project_id UUID,
       link_id UInt64,
       clicked_at DateTime64(3, 'UTC'),
       click_id UUID,
       referrer Nullable(String),
       user_agent Nullable(String),
       ip Nullable(String),
       is_bot UInt8,
       PROJECTION hourly (
         SELECT project_id, toStartOfHour(clicked_at), link_id, countIf(is_bot = 0), countIf(is_bot = 1)
         GROUP BY project_id, toStartOfHour(clicked_at), link_id
       ),
       PROJECTION totals (
         SELECT project_id, link_id, countIf(is_bot = 0), countIf(is_bot = 1)
         GROUP BY project_id, link_id
       )
     ) ENGINE = MergeTree
     PARTITION BY toYYYYMM(clicked_at)
     ORDER BY (project_id, link_id, clicked_at)
     SETTINGS ${dedup}`,
    `CREATE TABLE IF NOT EXISTS ${db}.conversions (
       project_id UUID,
       link_id UInt64,
       converted_at DateTime64(3, 'UTC'),
       conversion_id UUID,
       type LowCardinality(String),
       value Int64
     ) ENGINE = MergeTree
     PARTITION BY toYYYYMM(converted_at)
     ORDER BY (project_id, link_id, converted_at)
     SETTINGS ${dedup}`,
    `CREATE TABLE IF NOT EXISTS ${db}.links (
       project_id UUID,
       link_id UInt64,
       version UInt64,
       svc_id String,
       domain String,
       original_url String,
       channel Nullable(String),
       service Nullable(String),
       tool String,
       application String,
       campaign Nullable(String),
       tag Nullable(String),
       tag_2 Array(String),
       tag_3 Array(String),
       tag_4 Array(String),
       tag_5 Array(String),
       parent Nullable(String),
       sharer_id Nullable(String),
       username Nullable(String),
       service_userid Nullable(String),
       service_postid Nullable(String),
       user_id Nullable(String),
       created_at DateTime64(3, 'UTC'),
       shared_at DateTime64(3, 'UTC')
     ) ENGINE = ReplacingMergeTree(version)
     ORDER BY (project_id, link_id)`,
    `ALTER TABLE ${db}.links
       ${[
         ...['domain', 'tool', 'application'].map(
           (c) => `MODIFY COLUMN ${c} LowCardinality(String)`,
         ),
         ...['channel', 'service', 'campaign', 'tag'].map(
           (c) => `MODIFY COLUMN ${c} LowCardinality(Nullable(String))`,
         ),
         ...['tag_2', 'tag_3', 'tag_4', 'tag_5'].map(
           (c) => `MODIFY COLUMN ${c} Array(LowCardinality(String))`,
         ),
       ].join(',\n       ')}`,
    `ALTER TABLE ${db}.links ADD INDEX IF NOT EXISTS shared_at_minmax shared_at TYPE minmax GRANULARITY 1`,
    // Stamped events: each click and conversion carries its link's attributes as they were when it
    // was stored (LINK_STAMP_COLUMNS), so range and totals group and filter events without a join.
    ...['clicks', 'conversions'].map(
      (table) => `ALTER TABLE ${db}.${table}
       ${LINK_STAMP_COLUMNS.map(([name, type]) => `ADD COLUMN IF NOT EXISTS ${name} ${type}`).join(',\n       ')}`,
    ),
    `ALTER TABLE ${db}.clicks ADD PROJECTION IF NOT EXISTS stamped_hourly (
       SELECT ${STAMPED_HOURLY_KEYS}, countIf(is_bot = 0), countIf(is_bot = 1), max(shared_at)
       GROUP BY ${STAMPED_HOURLY_KEYS}
     )`,
    `ALTER TABLE ${db}.clicks ADD PROJECTION IF NOT EXISTS stamped_totals (
       SELECT ${STAMPED_TOTALS_KEYS}, countIf(is_bot = 0), countIf(is_bot = 1), max(shared_at)
       GROUP BY ${STAMPED_TOTALS_KEYS}
     )`,
    // The stamped projections serve every read the first two did (a group by link is a group of theirs).
    `ALTER TABLE ${db}.clicks DROP PROJECTION IF EXISTS hourly`,
    `ALTER TABLE ${db}.clicks DROP PROJECTION IF EXISTS totals`,
    // The links whose mirror holds a version other than the one they were created with, and that
    // version: events stamped with another version of these links are regrouped by their link's
    // latest attributes at query time. Written before the new version of `links` (a crash between
    // the two leaves events of the old version regrouped by the old attributes: the same figures).
    // An update is deleted again once no event of its link carries another version (settled:
    // LinkUpdates), so the table holds only the updates whose events need the test.
    `CREATE TABLE IF NOT EXISTS ${db}.link_updates (
       project_id UUID,
       link_id UInt64,
       version UInt64
     ) ENGINE = ReplacingMergeTree(version)
     ORDER BY (project_id, link_id)`,
    // Events not stamped (link_version 0) are found without reading the stamped ones.
    ...['clicks', 'conversions'].map(
      (table) =>
        `ALTER TABLE ${db}.${table} ADD INDEX IF NOT EXISTS link_version_minmax link_version TYPE minmax GRANULARITY 1`,
    ),
    // Click dimensions (CLICK_DIMENSION_COLUMNS): a click's own, computed as it is written; a
    // conversion's, its click's (`click_id`). Rows stored before them hold `enriched` 0 until
    // analytics:backfill describes them.
    `ALTER TABLE ${db}.clicks
       ${dimensionColumns()}`,
    `ALTER TABLE ${db}.conversions
       ADD COLUMN IF NOT EXISTS click_id Nullable(UUID),
       ${dimensionColumns()}`,
    // Range by the click dimensions of few values (country, device, browser, os), with filters
    // among them: clicks per (project, hour, those four), a few hundred thousand rows at 10M clicks.
    // Parts written before it gain it when merged or rewritten (analytics:backfill's dimensions
    // step rewrites them); meanwhile their raw clicks are read.
    `ALTER TABLE ${db}.clicks ADD PROJECTION IF NOT EXISTS dimensions_hourly (
       SELECT ${DIMENSIONS_HOURLY_KEYS}, countIf(is_bot = 0), countIf(is_bot = 1)
       GROUP BY ${DIMENSIONS_HOURLY_KEYS}
     )`,
    // Share chains (docs/architecture.md, "Share chains"): each link's root, depth and ancestors
    // (parent first), one row per version like `links`, apart from it so that moving a subtree
    // rewrites chains only, not the link versions stamps are checked against. Queries read the
    // latest version (FINAL). The bloom filter lets a cascade's read (has(ancestors, id)) skip
    // the granules of other cascades.
    `CREATE TABLE IF NOT EXISTS ${db}.link_chains (
       project_id UUID,
       link_id UInt64,
       version UInt64,
       root_id UInt64,
       depth UInt8,
       ancestors Array(UInt64),
       INDEX ancestors_bloom ancestors TYPE bloom_filter GRANULARITY 1,
       INDEX root_bloom root_id TYPE bloom_filter GRANULARITY 1
     ) ENGINE = ReplacingMergeTree(version)
     ORDER BY (project_id, link_id)`,
    ...chainFiguresSchema(db, dedup),
    ...retiredSchema(db, dedup, RETIRED_KEY_COLUMNS),
    ...retiredHorizonSchema(db, dedup),
  ];
}

/**
 * Chain figures kept by the store (docs/architecture.md, "Share chains"):
 *
 * - Every click and conversion carries its link's chain as it was stored (CHAIN_STAMP_COLUMNS:
 *   `ancestors`, parent first; `chain_stamped` 1, 0 on events stored before chain stamps).
 * - `chain_clicks_hourly` and `chain_hourly` hold, per (project, ancestor, hour, generation), the
 *   figures of the ancestor's descendants at that generation below it (1: its children): clicks
 *   and bot clicks in the first, pageviews and each goal's count and value in the second (and the
 *   clicks analytics:backfill adds for events stored before chain stamps). A materialized view
 *   per table fills it from the same inserts as the events (a click at depth d adds to its d
 *   ancestors), so each stored event counts once under the chain it was stamped with; a sum per
 *   key (SummingMergeTree). Statistics read the sum of both.
 * - `chain_moves` lists the links whose chain changed after events may have been stamped with the
 *   one before (a re-parented link and its subtree, a chain backfilled): each is written before
 *   the new chain, and statistics count such a link's events under its latest chain, correcting
 *   the figures its events were stamped with (StatsRepository).
 */
function chainFiguresSchema(db: string, dedup: string): string[] {
  const figures = ['clicks', 'bots', 'pageviews', ...GOALS.flatMap((n) => [`g${n}c`, `g${n}v`])];
  return [
    ...['clicks', 'conversions'].map(
      (table) => `ALTER TABLE ${db}.${table}
       ${CHAIN_STAMP_COLUMNS.map(([name, type]) => `ADD COLUMN IF NOT EXISTS ${name} ${type}`).join(',\n       ')}`,
    ),
    // Events without a chain stamp are found without reading the stamped ones.
    ...['clicks', 'conversions'].map(
      (table) =>
        `ALTER TABLE ${db}.${table} ADD INDEX IF NOT EXISTS chain_stamped_minmax chain_stamped TYPE minmax GRANULARITY 1`,
    ),
    `CREATE TABLE IF NOT EXISTS ${db}.chain_hourly (
       project_id UUID,
       ancestor_id UInt64,
       hour DateTime('UTC'),
       generation UInt8,
       ${figures.map((name) => `${name} Int64`).join(',\n       ')}
     ) ENGINE = SummingMergeTree
     ORDER BY (project_id, ancestor_id, hour, generation)
     SETTINGS ${dedup}`,
    // Clicks go to a table of their two figures: a part of chain_hourly's 23 columns per insert
    // took as much of the engine's time per click as the rest of the click.
    `CREATE TABLE IF NOT EXISTS ${db}.chain_clicks_hourly (
       project_id UUID,
       ancestor_id UInt64,
       hour DateTime('UTC'),
       generation UInt8,
       clicks Int64,
       bots Int64
     ) ENGINE = SummingMergeTree
     ORDER BY (project_id, ancestor_id, hour, generation)
     SETTINGS ${dedup}`,
    `DROP VIEW IF EXISTS ${db}.chain_hourly_clicks`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.chain_clicks_hourly_view TO ${db}.chain_clicks_hourly AS
     SELECT project_id, ancestor_id, toStartOfHour(clicked_at) AS hour, generation,
            toInt64(countIf(is_bot = 0)) AS clicks, toInt64(countIf(is_bot = 1)) AS bots
     FROM ${db}.clicks
     ARRAY JOIN ancestors AS ancestor_id, arrayEnumerate(ancestors) AS generation
     GROUP BY project_id, ancestor_id, hour, generation`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.chain_hourly_conversions TO ${db}.chain_hourly AS
     SELECT project_id, ancestor_id, toStartOfHour(converted_at) AS hour, generation,
            toInt64(countIf(type = 'pageview')) AS pageviews,
            ${GOALS.map((n) => `toInt64(countIf(type = 'goal_${n}')) AS g${n}c, toInt64(sumIf(value, type = 'goal_${n}')) AS g${n}v`).join(',\n            ')}
     FROM ${db}.conversions
     ARRAY JOIN ancestors AS ancestor_id, arrayEnumerate(ancestors) AS generation
     GROUP BY project_id, ancestor_id, hour, generation`,
    // A chain's link's shared time (as `links` holds it), so the chain statistics count the
    // descendants shared in a period from `link_chains` alone; null on rows written before it
    // (analytics:backfill writes them again with it).
    `ALTER TABLE ${db}.link_chains ADD COLUMN IF NOT EXISTS shared_at Nullable(DateTime64(3, 'UTC'))`,
    `CREATE TABLE IF NOT EXISTS ${db}.chain_moves (
       project_id UUID,
       link_id UInt64,
       moved_at DateTime64(3, 'UTC')
     ) ENGINE = ReplacingMergeTree(moved_at)
     ORDER BY (project_id, link_id)`,
  ];
}

/**
 * The chain every click and conversion is stamped with (name, type), after its link's stamp
 * (LINK_STAMP_COLUMNS): 1 when stamped (0: an event stored before chain stamps, or of a link the
 * mirror lacked), and the link's ancestors, parent first (a root's: none), from `link_chains`.
 */
export const CHAIN_STAMP_COLUMNS: readonly (readonly [string, string])[] = [
  ['chain_stamped', 'UInt8'],
  ['ancestors', 'Array(UInt64)'],
];

/** The keys of projection dimensions_hourly: the click dimensions with few values, by hour. */
const DIMENSIONS_HOURLY_KEYS =
  'project_id, toStartOfHour(clicked_at), country, device, browser, os';

/**
 * The dimensions of a click (docs/api.md, "Click dimensions"), named as the statistics parameters
 * that group, pivot and filter by them: its place (from the client address, before CLICK_IP
 * anonymises or drops it), its device class, browser and operating system (from the user agent)
 * and its referring site. Null where unknown. Few distinct values each: a dictionary per part.
 */
export const CLICK_DIMENSION_COLUMNS = [
  'country',
  'region',
  'city',
  'device',
  'browser',
  'os',
  'referrer_host',
] as const;

export type ClickDimension = (typeof CLICK_DIMENSION_COLUMNS)[number];

/** The dimension columns and `enriched` (1: the dimensions were computed; 0: stored before them). */
export const ENRICHMENT_COLUMNS: readonly string[] = [...CLICK_DIMENSION_COLUMNS, 'enriched'];

function dimensionColumns(): string {
  return [
    ...CLICK_DIMENSION_COLUMNS.map(
      (c) => `ADD COLUMN IF NOT EXISTS ${c} LowCardinality(Nullable(String))`,
    ),
    'ADD COLUMN IF NOT EXISTS enriched UInt8 DEFAULT 0',
  ].join(',\n       ');
}

/**
 * The link attributes every click and conversion is stamped with (name, type), in their order in a
 * stamp: the `links` version they come from (0: not stamped), then the attributes statistics group
 * and filter by, typed as in `links`. Per-link values that group one link apiece (svc_id,
 * original_url, service_postid) are left out: statistics by them join `links`.
 */
export const LINK_STAMP_COLUMNS: readonly (readonly [string, string])[] = [
  ['link_version', 'UInt64'],
  ['domain', 'LowCardinality(String)'],
  ['channel', 'LowCardinality(Nullable(String))'],
  ['service', 'LowCardinality(Nullable(String))'],
  ['tool', 'LowCardinality(String)'],
  ['application', 'LowCardinality(String)'],
  ['campaign', 'LowCardinality(Nullable(String))'],
  ['tag', 'LowCardinality(Nullable(String))'],
  ['tag_2', 'Array(LowCardinality(String))'],
  ['tag_3', 'Array(LowCardinality(String))'],
  ['tag_4', 'Array(LowCardinality(String))'],
  ['tag_5', 'Array(LowCardinality(String))'],
  ['parent', 'Nullable(String)'],
  ['sharer_id', 'Nullable(String)'],
  ['username', 'Nullable(String)'],
  ['service_userid', 'Nullable(String)'],
  ['user_id', 'Nullable(String)'],
  ['shared_at', "DateTime64(3, 'UTC')"],
];

/** The attribute columns of a stamp (LINK_STAMP_COLUMNS without the version). */
export const STAMPED_ATTRIBUTES = LINK_STAMP_COLUMNS.slice(1).map(([name]) => name);

/** The columns of `links` a stamp is read from, in LINK_STAMP_COLUMNS' order (its version is `version` there). */
export const STAMP_SOURCE_COLUMNS = ['version', ...STAMPED_ATTRIBUTES];

/** Range's rollup: per (project, hour, link, version) with its attributes; range reads the period's hours. */
const STAMPED_HOURLY_KEYS = [
  'project_id',
  'toStartOfHour(clicked_at)',
  'link_id',
  'link_version',
  ...STAMPED_ATTRIBUTES,
].join(', ');
/** Totals' rollup: per (project, shared time, link, version), all time; totals reads the links shared in the period. */
const STAMPED_TOTALS_KEYS = [
  'project_id',
  'shared_at',
  'link_id',
  'link_version',
  ...STAMPED_ATTRIBUTES.filter((c) => c !== 'shared_at'),
].join(', ');

/** A stamp as events carry it: their link's (LINK_STAMP_COLUMNS), then its chain's (CHAIN_STAMP_COLUMNS). */
export const STAMP_COLUMNS = [...LINK_STAMP_COLUMNS, ...CHAIN_STAMP_COLUMNS];

/**
 * The SETTINGS clause of a read of one link's raw clicks (its key range of `clicks`): the aggregate
 * projections cannot answer it (it reads click times and ids, which they do not keep), so the
 * engine is told not to weigh them, a step that takes as long as the read itself.
 */
export const RAW_CLICKS_READ = 'SETTINGS optimize_use_projections = 0';

/**
 * The key columns of the retired rollups (`clicks_retired`, `conversions_retired`), name and type:
 * project, link, hour, the stamp (STAMP_COLUMNS) and the click dimensions, typed as in the events.
 */
export const RETIRED_KEY_COLUMNS: readonly (readonly [string, string])[] = [
  ['project_id', 'UUID'],
  ['link_id', 'UInt64'],
  ['hour', "DateTime('UTC')"],
  ...STAMP_COLUMNS,
  ...CLICK_DIMENSION_COLUMNS.map((c) => [c, 'LowCardinality(Nullable(String))'] as const),
];

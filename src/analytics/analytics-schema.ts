/**
 * The analytics store's tables (ClickHouse SQL), created at start when missing. Every statement is
 * idempotent (IF NOT EXISTS), so every process may run them; a change of a table is a new statement
 * appended here, never an edit of one that has run.
 *
 * - `clicks`: one row per click, sorted by (project, link, time): a link's intervals and latest click
 *   and a conversion's click are reads of one key range. Monthly partitions.
 * - `link_clicks_hourly` (materialized view of clicks): clicks per (project, hour, link); range
 *   reads the period's hours of one project, then joins the links.
 * - `link_click_totals` (materialized view of clicks): all-time clicks per (project, link), what
 *   totals reads for the links shared in its period.
 * - `click_ids` (materialized view of clicks): the ids of the last 35 days' clicks, sorted by id (a
 *   UUIDv7: by time), where a batch that may overlap stored clicks looks its ids up.
 * - `conversions`: one row per conversion (few beside clicks), sorted like clicks.
 * - `links`: a mirror of each link's statistics attributes, one row per version
 *   (ReplacingMergeTree by `version`); queries read its latest version (FINAL) and join it to the
 *   figures by link id, so an update of a link shows in every statistic.
 *
 * Inserts into clicks and conversions carry a deduplication token (their job's clicks, the
 * conversion's id): within the last 10,000 inserts, the same token is skipped, in the views too.
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
       is_bot UInt8
     ) ENGINE = MergeTree
     PARTITION BY toYYYYMM(clicked_at)
     ORDER BY (project_id, link_id, clicked_at)
     SETTINGS ${dedup}`,
    `CREATE TABLE IF NOT EXISTS ${db}.link_clicks_hourly (
       project_id UUID,
       hour DateTime('UTC'),
       link_id UInt64,
       clicks UInt64,
       bot_clicks UInt64
     ) ENGINE = SummingMergeTree
     PARTITION BY toYYYYMM(hour)
     ORDER BY (project_id, hour, link_id)
     SETTINGS ${dedup}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.link_clicks_hourly_mv TO ${db}.link_clicks_hourly AS
     SELECT project_id, toStartOfHour(clicked_at) AS hour, link_id,
            countIf(is_bot = 0) AS clicks, countIf(is_bot = 1) AS bot_clicks
     FROM ${db}.clicks GROUP BY project_id, hour, link_id`,
    `CREATE TABLE IF NOT EXISTS ${db}.link_click_totals (
       project_id UUID,
       link_id UInt64,
       clicks UInt64,
       bot_clicks UInt64
     ) ENGINE = SummingMergeTree
     ORDER BY (project_id, link_id)
     SETTINGS ${dedup}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.link_click_totals_mv TO ${db}.link_click_totals AS
     SELECT project_id, link_id, countIf(is_bot = 0) AS clicks, countIf(is_bot = 1) AS bot_clicks
     FROM ${db}.clicks GROUP BY project_id, link_id`,
    `CREATE TABLE IF NOT EXISTS ${db}.click_ids (
       click_id UUID,
       clicked_at DateTime64(3, 'UTC')
     ) ENGINE = MergeTree
     PARTITION BY toYYYYMM(clicked_at)
     ORDER BY click_id
     TTL toDateTime(clicked_at) + INTERVAL 35 DAY
     SETTINGS ${dedup}`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.click_ids_mv TO ${db}.click_ids AS
     SELECT click_id, clicked_at FROM ${db}.clicks`,
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
  ];
}

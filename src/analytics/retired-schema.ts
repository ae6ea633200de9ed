/**
 * Retention's horizons and sweeps (docs/architecture.md, "Retention"):
 *
 * - `retired_horizons`: per project, the hour before which its events are read from the retired
 *   rollups and at or after which from the raw rows (retired-horizon.ts); written by the retention
 *   job after a chunk's rollups and before the delete of its raw rows. It only grows; a row per
 *   move, the latest version kept.
 * - `retired_sweeps`: the ids of the late events (raw rows below their project's horizon, stored
 *   after their chunk was retired) one sweep of the job rolls up and deletes, under the sweep's
 *   token: the first insert of a token fixes the set (a repeat is skipped), so a sweep resumed
 *   after a crash rolls up and deletes the same rows. Kept 30 days.
 */
export function retiredHorizonSchema(db: string, dedup: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.retired_horizons (
       project_id UUID,
       retired_until DateTime64(3, 'UTC'),
       version UInt64
     ) ENGINE = ReplacingMergeTree(version)
     ORDER BY project_id`,
    `CREATE TABLE IF NOT EXISTS ${db}.retired_sweeps (
       token String,
       kind LowCardinality(String),
       id UUID,
       at DateTime('UTC') DEFAULT now()
     ) ENGINE = MergeTree
     ORDER BY (token, kind, id)
     TTL at + INTERVAL 30 DAY
     SETTINGS ${dedup}`,
  ];
}

/**
 * Retention (docs/architecture.md, "Retention"): a project's events older than its retention
 * lose their raw rows; what they counted stays in hourly rollups, summed per (project, link, hour)
 * and every column statistics group, filter or correct by (`keyColumns`: RETIRED_KEY_COLUMNS of
 * analytics-schema.ts, the stamp, its chain, the click dimensions; clicks also is_bot, conversions
 * their type), with `n` events (and the conversions' `value`). No address, user agent, referrer,
 * click id or session. Written only by the retention job, one insert per retired chunk (a
 * project's month at most), under a deduplication token of its own, so a chunk sent again is
 * skipped.
 */
export function retiredSchema(
  db: string,
  dedup: string,
  keyColumns: readonly (readonly [string, string])[],
): string[] {
  const keys = keyColumns.map(([name, type]) => `${name} ${type}`).join(',\n       ');
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.clicks_retired (
       ${keys},
       is_bot UInt8,
       n UInt64
     ) ENGINE = MergeTree
     PARTITION BY toYYYYMM(hour)
     ORDER BY (project_id, link_id, hour)
     SETTINGS ${dedup}`,
    `CREATE TABLE IF NOT EXISTS ${db}.conversions_retired (
       ${keys},
       type LowCardinality(String),
       n UInt64,
       value Int64
     ) ENGINE = MergeTree
     PARTITION BY toYYYYMM(hour)
     ORDER BY (project_id, link_id, hour)
     SETTINGS ${dedup}`,
  ];
}

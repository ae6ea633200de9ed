import { chTime } from '../analytics/analytics-client';
import { RETIRED_KEY_COLUMNS } from '../analytics/analytics-schema';
import type { Params } from '../analytics/analytics-client';

/**
 * The analytics store's statements of the retention job (docs/architecture.md, "Retention"), one
 * chunk at a time: a project's events in [from, to), at most one calendar month.
 */

/** The events' tables: their time column and the retired rollup they are summed into. */
export const EVENT_TABLES = {
  clicks: { time: 'clicked_at', retired: 'clicks_retired' },
  conversions: { time: 'converted_at', retired: 'conversions_retired' },
} as const;

export type EventTable = keyof typeof EVENT_TABLES;

/** A project's chunk of events: [from, to). */
export interface Chunk {
  projectId: string;
  from: Date;
  to: Date;
}

export interface RetentionStatement {
  sql: string;
  params: Params;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIME = "DateTime64(3, 'UTC')";

/** The chunk's parameters: project, from, to. */
function chunkParams(chunk: Chunk): Params {
  return { project: chunk.projectId, from: chTime(chunk.from), to: chTime(chunk.to) };
}

/** The chunk's events of a table: by its sorting key's project and the partition's time. */
function inChunk(table: EventTable): string {
  const time = EVENT_TABLES[table].time;
  return `project_id = {project:UUID} AND ${time} >= {from:${TIME}} AND ${time} < {to:${TIME}}`;
}

/**
 * The hour of the project's first event of a table at or after `from` and before `to` (rows:
 * `hour`, none without one): grouped by the keys of projection stamped_hourly for clicks, by the
 * sorting key for conversions; the partitions' time bounds skip the months before.
 */
export function firstEventHourQuery(
  db: string,
  table: EventTable,
  chunk: Chunk,
): RetentionStatement {
  const time = EVENT_TABLES[table].time;
  return {
    sql: `SELECT toStartOfHour(${time}) AS hour FROM ${db}.${table}
       WHERE ${inChunk(table)}
       GROUP BY hour ORDER BY hour LIMIT 1`,
    params: chunkParams(chunk),
  };
}

/**
 * The deduplication token of a chunk's rollup insert: the same chunk (project, table, from, to)
 * always has the same one, so that an insert sent again after a crash is skipped by the store
 * (its table's non_replicated_deduplication_window).
 */
export function rollupToken(table: EventTable, chunk: Chunk): string {
  if (!UUID.test(chunk.projectId)) throw new Error(`not a project id: ${chunk.projectId}`);
  return `retention:${table}:${chunk.projectId}:${chunk.from.getTime()}:${chunk.to.getTime()}`;
}

/**
 * The chunk's events of a table summed into its retired rollup, per (project, link, hour, stamp,
 * chain stamp, click dimensions) and is_bot (clicks) or type (conversions): `n` events, and the
 * conversions' summed `value`. One INSERT … SELECT under the chunk's token (rollupToken).
 */
export function rollupStatement(db: string, table: EventTable, chunk: Chunk): RetentionStatement {
  const { time, retired } = EVENT_TABLES[table];
  const keys = RETIRED_KEY_COLUMNS.map(([name]) => name);
  const selected = keys.map((name) => (name === 'hour' ? `toStartOfHour(${time}) AS hour` : name));
  const own = table === 'clicks' ? ['is_bot'] : ['type'];
  const figures = table === 'clicks' ? ['count() AS n'] : ['count() AS n', 'sum(value) AS value'];
  const columns = [...keys, ...own, 'n', ...(table === 'clicks' ? [] : ['value'])];
  return {
    sql: `INSERT INTO ${db}.${retired} (${columns.join(', ')})
       SETTINGS insert_deduplication_token = '${rollupToken(table, chunk)}'
       SELECT ${[...selected, ...own, ...figures].join(', ')}
       FROM ${db}.${table}
       WHERE ${inChunk(table)}
       GROUP BY ${[...keys, ...own].join(', ')}`,
    params: chunkParams(chunk),
  };
}

/**
 * Deletes the chunk's raw events of a table: a mutation (ALTER TABLE … DELETE), which rewrites
 * the parts of the chunk's month that hold them with their projections, and returns once it is
 * done (mutations_sync). Not a lightweight DELETE: `clicks` has projections, which would make it
 * rebuild them as the mutation does, after a change of the table's settings (docs/architecture.md,
 * "Retention").
 */
export function deleteRawStatement(
  db: string,
  table: EventTable,
  chunk: Chunk,
): RetentionStatement {
  // A mutation keeps its condition as text: its values are written in it, not bound (checked:
  // a UUID and whole milliseconds).
  if (!UUID.test(chunk.projectId)) throw new Error(`not a project id: ${chunk.projectId}`);
  const time = EVENT_TABLES[table].time;
  const at = (date: Date) => `fromUnixTimestamp64Milli(${Math.trunc(date.getTime())}, 'UTC')`;
  return {
    sql: `ALTER TABLE ${db}.${table} DELETE
       WHERE project_id = toUUID('${chunk.projectId}')
         AND ${time} >= ${at(chunk.from)} AND ${time} < ${at(chunk.to)}
       SETTINGS mutations_sync = 2`,
    params: {},
  };
}

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
  return {
    sql: rollupSql(db, table, inChunk(table), rollupToken(table, chunk)),
    params: chunkParams(chunk),
  };
}

/** An INSERT … SELECT of a table's events passing `where` into its rollup, under `token`. */
function rollupSql(db: string, table: EventTable, where: string, token: string): string {
  const { time, retired } = EVENT_TABLES[table];
  const keys = RETIRED_KEY_COLUMNS.map(([name]) => name);
  const selected = keys.map((name) => (name === 'hour' ? `toStartOfHour(${time}) AS hour` : name));
  const own = table === 'clicks' ? ['is_bot'] : ['type'];
  const figures = table === 'clicks' ? ['count() AS n'] : ['count() AS n', 'sum(value) AS value'];
  const columns = [...keys, ...own, 'n', ...(table === 'clicks' ? [] : ['value'])];
  return `INSERT INTO ${db}.${retired} (${columns.join(', ')})
       SETTINGS insert_deduplication_token = '${token}'
       SELECT ${[...selected, ...own, ...figures].join(', ')}
       FROM ${db}.${table}
       WHERE ${where}
       GROUP BY ${[...keys, ...own].join(', ')}`;
}

/**
 * Moves the project's horizon (retired-horizon.ts) to `until`: from then on statistics read its
 * events before it from the rollups only, those at or after it from the raw rows only. Written
 * after the chunk's rollups, before its raw rows are deleted. Sent again, it changes nothing (a
 * horizon is the greatest written).
 */
export function horizonStatement(db: string, projectId: string, until: Date): RetentionStatement {
  return {
    sql: `INSERT INTO ${db}.retired_horizons (project_id, retired_until, version)
       SELECT {project:UUID}, {until:${TIME}}, {version:UInt64}`,
    params: { project: projectId, until: chTime(until), version: until.getTime() },
  };
}

/** The project's horizon in the analytics store (rows: `until`, 1970 without one). */
export function horizonQuery(db: string, projectId: string): RetentionStatement {
  return {
    sql: `SELECT max(retired_until) AS until FROM ${db}.retired_horizons
       WHERE project_id = {project:UUID}`,
    params: { project: projectId },
  };
}

/**
 * A sweep of late events (docs/architecture.md, "Retention"): a project's raw events before
 * `before` (its retired_until), stored after their chunk was retired, which statistics leave out
 * (they lie below the horizon) until the sweep rolls them up and deletes them, identified by the
 * ids it saved under `token` (retired_sweeps).
 */
export interface Sweep {
  projectId: string;
  token: string;
  before: Date;
}

/** The id column of each event table. */
const ID_COLUMN: Record<EventTable, string> = { clicks: 'click_id', conversions: 'conversion_id' };

/** Whether the project has late events before `before` (rows: one, `late` 1, when it has). */
export function lateEventsQuery(db: string, projectId: string, before: Date): RetentionStatement {
  const late = (table: EventTable) =>
    `SELECT 1 AS late FROM ${db}.${table}
       WHERE project_id = {project:UUID} AND ${EVENT_TABLES[table].time} < {before:${TIME}} LIMIT 1`;
  return {
    sql: `${late('clicks')}
       UNION ALL
       ${late('conversions')}`,
    params: { project: projectId, before: chTime(before) },
  };
}

/**
 * Saves the ids of the sweep's late events (at most `limit` per table): the set the sweep rolls up
 * and deletes. Sent only while the token has no ids yet (the service checks), in one insert.
 */
export function sweepIdsStatement(db: string, sweep: Sweep, limit: number): RetentionStatement {
  const token = sweepToken(sweep);
  const ids = (table: EventTable) =>
    `SELECT {token:String}, '${table}', ${ID_COLUMN[table]} FROM ${db}.${table}
       WHERE project_id = {project:UUID} AND ${EVENT_TABLES[table].time} < {before:${TIME}}
       LIMIT ${Math.trunc(limit)}`;
  return {
    sql: `INSERT INTO ${db}.retired_sweeps (token, kind, id)
       SETTINGS insert_deduplication_token = 'retention:sweep:${token}:ids'
       ${ids('clicks')}
       UNION ALL
       ${ids('conversions')}`,
    params: { token, project: sweep.projectId, before: chTime(sweep.before) },
  };
}

/** How many ids the sweep's token has saved (rows: `n`). */
export function sweepIdCountQuery(db: string, sweep: Sweep): RetentionStatement {
  return {
    sql: `SELECT count() AS n FROM ${db}.retired_sweeps WHERE token = {token:String}`,
    params: { token: sweepToken(sweep) },
  };
}

/** The sweep's events of a table summed into its rollup, under a token of the sweep's. */
export function sweepRollupStatement(
  db: string,
  table: EventTable,
  sweep: Sweep,
): RetentionStatement {
  const token = sweepToken(sweep);
  const where = `project_id = {project:UUID} AND ${sweptIds(db, table, token)}`;
  return {
    sql: rollupSql(db, table, where, `retention:sweep:${token}:${table}`),
    params: { project: sweep.projectId },
  };
}

/** Deletes the sweep's raw events of a table: a mutation, as deleteRawStatement. */
export function sweepDeleteStatement(
  db: string,
  table: EventTable,
  sweep: Sweep,
): RetentionStatement {
  if (!UUID.test(sweep.projectId)) throw new Error(`not a project id: ${sweep.projectId}`);
  return {
    sql: `ALTER TABLE ${db}.${table} DELETE
       WHERE project_id = toUUID('${sweep.projectId}') AND ${sweptIds(db, table, sweepToken(sweep))}
       SETTINGS mutations_sync = 2`,
    params: {},
  };
}

/** The sweep's token, checked (written into statements: a UUID). */
function sweepToken(sweep: Sweep): string {
  if (!UUID.test(sweep.token)) throw new Error(`not a sweep token: ${sweep.token}`);
  return sweep.token.toLowerCase();
}

/** The condition of the events of a table whose ids the sweep saved. */
function sweptIds(db: string, table: EventTable, token: string): string {
  return `${ID_COLUMN[table]} IN (SELECT id FROM ${db}.retired_sweeps
         WHERE token = '${token}' AND kind = '${table}')`;
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

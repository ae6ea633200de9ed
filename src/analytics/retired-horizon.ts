/**
 * The retired horizon of a project (docs/architecture.md, "Retention"): the hour before which its
 * events are counted from their hourly rollups (`clicks_retired`, `conversions_retired`) and at or
 * after which from their raw rows (`clicks`, `conversions`). The retention job moves it, in table
 * `retired_horizons`, after a chunk's rollups are stored and before its raw rows are deleted, so
 * that a statement reading both counts each event once at every instant: before the move the
 * chunk's rollups lie at or after the horizon (left out), after it the chunk's raw rows lie before
 * it (left out), whether or not the delete has reached their part.
 *
 * A statement reads the horizon inside itself, a scalar subquery per project set: the engine runs
 * an identical subquery once per statement, so every part of the statement that writes it the
 * same way (the same `projects` text) sees the same horizons. A horizon only grows: the latest is
 * the greatest (no FINAL needed). A project without one has 1970: every raw row counts.
 */

/**
 * The horizon of each row's project (`project_id`), for rows of the projects `projects` (SQL of
 * an Array(UUID): a bound placeholder, or `[{project:UUID}]`): a map of the projects' horizons
 * looked up by the row's project.
 */
export function retiredHorizon(db: string, projects: string): string {
  return `(SELECT mapFromArrays(groupArray(project_id), groupArray(until))
      FROM (SELECT project_id, max(retired_until) AS until FROM ${db}.retired_horizons
            WHERE project_id IN ${projects} GROUP BY project_id))[project_id]`;
}

/**
 * The raw events a statement adding rollups counts: those at or after their project's horizon,
 * by the start of their hour (as the stamped_hourly and dimensions_hourly projections of `clicks`
 * hold the time, so that they still serve the read).
 */
export function rawSinceHorizon(db: string, projects: string, time: string): string {
  return `toStartOfHour(${time}) >= ${retiredHorizon(db, projects)}`;
}

/** The rollup rows a statement counts: those of hours before their project's horizon. */
export function retiredBeforeHorizon(db: string, projects: string): string {
  return `hour < ${retiredHorizon(db, projects)}`;
}

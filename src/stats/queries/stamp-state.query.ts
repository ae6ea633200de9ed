import { Statement } from './statement';

/**
 * Whether the projects have a link updated since its creation and not settled (`link_updates`,
 * sorting key project_id, link_id), and clicks or conversions not stamped (link_version 0: the
 * minmax index of link_version skips every granule of stamped events), in one statement. Rows:
 * `what`, one of 'updated', 'clicks', 'conversions', for each that the projects have.
 */
export function stampStateQuery(db: string, projectIds: string[], retired = false): Statement {
  // With retired events, their rollups count as their events would (unstamped: link_version 0).
  const rollups = retired
    ? `
       UNION ALL
       SELECT 'clicks' AS what FROM ${db}.clicks_retired
         WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1
       UNION ALL
       SELECT 'conversions' AS what FROM ${db}.conversions_retired
         WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1`
    : '';
  return {
    sql: `SELECT 'updated' AS what FROM ${db}.link_updates
         WHERE project_id IN {projects:Array(UUID)} LIMIT 1
       UNION ALL
       SELECT 'clicks' AS what FROM ${db}.clicks
         WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1
       UNION ALL
       SELECT 'conversions' AS what FROM ${db}.conversions
         WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1${rollups}`,
    params: { projects: projectIds },
  };
}

/**
 * Whether the projects have retired events (docs/architecture.md, "Retention": rows in
 * `clicks_retired` or `conversions_retired`, sorting key project_id, link_id, hour), which
 * statistics then add. Rows: `what` 'retired', one when they have.
 */
export function retiredStateQuery(db: string, projectIds: string[]): Statement {
  return {
    sql: `SELECT 'retired' AS what FROM ${db}.clicks_retired
         WHERE project_id IN {projects:Array(UUID)} LIMIT 1
       UNION ALL
       SELECT 'retired' AS what FROM ${db}.conversions_retired
         WHERE project_id IN {projects:Array(UUID)} LIMIT 1`,
    params: { projects: projectIds },
  };
}

/**
 * Whether the projects have clicks or conversions without a chain stamp (chain_stamped 0: the
 * minmax index of chain_stamped skips every granule of stamped events) or chains without their
 * link's shared time (written before it), and links whose chain moved
 * (`chain_moves`, sorting key project_id, link_id), in one statement. Rows: `what`, one of
 * 'unstamped', 'moved', for each that the projects have.
 */
export function chainStateQuery(db: string, projectIds: string[], retired = false): Statement {
  const rollups = retired
    ? `
       UNION ALL
       SELECT 'unstamped' AS what FROM ${db}.clicks_retired
         WHERE project_id IN {projects:Array(UUID)} AND chain_stamped = 0 LIMIT 1
       UNION ALL
       SELECT 'unstamped' AS what FROM ${db}.conversions_retired
         WHERE project_id IN {projects:Array(UUID)} AND chain_stamped = 0 LIMIT 1`
    : '';
  return {
    sql: `SELECT 'unstamped' AS what FROM ${db}.clicks
         WHERE project_id IN {projects:Array(UUID)} AND chain_stamped = 0 LIMIT 1
       UNION ALL
       SELECT 'unstamped' AS what FROM ${db}.conversions
         WHERE project_id IN {projects:Array(UUID)} AND chain_stamped = 0 LIMIT 1
       UNION ALL
       SELECT 'unstamped' AS what FROM ${db}.link_chains FINAL
         WHERE project_id IN {projects:Array(UUID)} AND shared_at IS NULL LIMIT 1
       UNION ALL
       SELECT 'moved' AS what FROM ${db}.chain_moves
         WHERE project_id IN {projects:Array(UUID)} LIMIT 1${rollups}`,
    params: { projects: projectIds },
  };
}

import { Statement } from './statement';

/**
 * Whether the projects have a link updated since its creation and not settled (`link_updates`,
 * sorting key project_id, link_id), and clicks or conversions not stamped (link_version 0: the
 * minmax index of link_version skips every granule of stamped events), in one statement. Rows:
 * `what`, one of 'updated', 'clicks', 'conversions', for each that the projects have.
 */
export function stampStateQuery(db: string, projectIds: string[]): Statement {
  return {
    sql: `SELECT 'updated' AS what FROM ${db}.link_updates
         WHERE project_id IN {projects:Array(UUID)} LIMIT 1
       UNION ALL
       SELECT 'clicks' AS what FROM ${db}.clicks
         WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1
       UNION ALL
       SELECT 'conversions' AS what FROM ${db}.conversions
         WHERE project_id IN {projects:Array(UUID)} AND link_version = 0 LIMIT 1`,
    params: { projects: projectIds },
  };
}

import { Statement } from './statement';

/** A probe of one table: a row `what` when the projects have a row there (`condition` too). */
type Probe = readonly [what: string, table: string, condition?: string];

/** The probes in one statement: a row `what` for each that finds a row of the projects. */
function probes(db: string, projectIds: string[], list: readonly Probe[]): Statement {
  return {
    sql: list
      .map(
        ([what, table, condition]) =>
          `SELECT '${what}' AS what FROM ${db}.${table}
         WHERE project_id IN {projects:Array(UUID)}${condition ? ` AND ${condition}` : ''} LIMIT 1`,
      )
      .join('\n       UNION ALL\n       '),
    params: { projects: projectIds },
  };
}

/** The events' tables, raw and (with retired events) their rollups (docs/architecture.md, "Retention"). */
function eventTables(
  retired: boolean,
): readonly (readonly [clicks: string, conversions: string])[] {
  return retired
    ? [
        ['clicks', 'conversions'],
        ['clicks_retired', 'conversions_retired'],
      ]
    : [['clicks', 'conversions']];
}

/**
 * Whether the projects have a link updated since its creation and not settled (`link_updates`,
 * sorting key project_id, link_id), and clicks or conversions not stamped (link_version 0: the
 * minmax index of link_version skips every granule of stamped events), in one statement. Rows:
 * `what`, one of 'updated', 'clicks', 'conversions', for each that the projects have. With
 * retired events, their rollups count as their events would.
 */
export function stampStateQuery(db: string, projectIds: string[], retired = false): Statement {
  return probes(db, projectIds, [
    ['updated', 'link_updates'],
    ...eventTables(retired).flatMap(([clicks, conversions]): Probe[] => [
      ['clicks', clicks, 'link_version = 0'],
      ['conversions', conversions, 'link_version = 0'],
    ]),
  ]);
}

/**
 * Whether the projects have retired events (docs/architecture.md, "Retention": rows in
 * `clicks_retired` or `conversions_retired`, sorting key project_id, link_id, hour), which
 * statistics then add. Rows: `what` 'retired', one when they have.
 */
export function retiredStateQuery(db: string, projectIds: string[]): Statement {
  return probes(db, projectIds, [
    ['retired', 'clicks_retired'],
    ['retired', 'conversions_retired'],
  ]);
}

/**
 * Whether the projects have clicks or conversions without a chain stamp (chain_stamped 0: the
 * minmax index of chain_stamped skips every granule of stamped events) or chains without their
 * link's shared time (written before it), and links whose chain moved
 * (`chain_moves`, sorting key project_id, link_id), in one statement. Rows: `what`, one of
 * 'unstamped', 'moved', for each that the projects have. With retired events, their rollups too.
 */
export function chainStateQuery(db: string, projectIds: string[], retired = false): Statement {
  const [raw, ...rollups] = eventTables(retired);
  const unstamped = ([clicks, conversions]: readonly [string, string]): Probe[] => [
    ['unstamped', clicks, 'chain_stamped = 0'],
    ['unstamped', conversions, 'chain_stamped = 0'],
  ];
  return probes(db, projectIds, [
    ...unstamped(raw),
    ['unstamped', 'link_chains FINAL', 'shared_at IS NULL'],
    ['moved', 'chain_moves'],
    ...rollups.flatMap(unstamped),
  ]);
}

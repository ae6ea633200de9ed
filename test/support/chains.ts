import type { AnalyticsClient } from '../../src/analytics/analytics-client';

/** A link's chain, its links named as a test names them. */
export interface Chain {
  ancestors: string[];
  root: string;
  depth: number;
}

/** Names links in a test: `ids` from name to link id, `named` from link id to name. */
export interface LinkNames {
  ids: Map<string, string>;
  named: (id: string) => string;
}

/**
 * The latest `link_chains` rows of the analytics store for the named links, by name. A link without
 * a row is its own root at depth 0, as the statistics read the table (a root is mirrored without
 * one).
 */
export async function storedChains(
  analytics: AnalyticsClient,
  names: LinkNames,
  of: string[],
): Promise<Record<string, Chain>> {
  const rows = await analytics.query<{
    link_id: string;
    ancestors: string[];
    root_id: string;
    depth: number;
  }>(
    `SELECT toString(link_id) AS link_id, arrayMap(a -> toString(a), ancestors) AS ancestors,
            toString(root_id) AS root_id, depth
     FROM ${analytics.database}.link_chains FINAL WHERE toString(link_id) IN {ids:Array(String)}`,
    { ids: of.map((name) => names.ids.get(name)!) },
  );
  const { named } = names;
  const stored: Record<string, Chain> = Object.fromEntries(
    rows.map((r) => [
      named(r.link_id),
      { ancestors: r.ancestors.map(named), root: named(r.root_id), depth: Number(r.depth) },
    ]),
  );
  for (const name of of) stored[name] ??= { ancestors: [], root: name, depth: 0 };
  return stored;
}

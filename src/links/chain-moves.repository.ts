import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ChainRow } from '../analytics/link-mirror';

/** A link's chain as PostgreSQL holds it (migration LinkChains); null fields while it has none. */
export interface LinkChain {
  id: string;
  projectId: string;
  /** Parent first, root last; empty for a root. */
  ancestors: string[] | null;
  rootId: string | null;
  depth: number | null;
}

/** What a re-parent would make of a link's cascade (ChainMovesRepository.findMoveBounds). */
export interface MoveBounds {
  /** The new parent is the link itself or one of its descendants. */
  cycle: boolean;
  /** The new parent's depth; null while it has no chain. */
  parentDepth: number | null;
  /** How many generations the link's deepest descendant is below it (0 without descendants). */
  below: number;
}

/** The chain columns of `links` under `alias`, as a RETURNING or SELECT list that rowToChain reads. */
export function chainColumns(alias: string): string {
  return `${alias}.id::text AS id, ${alias}.project_id::text AS project_id,
          ${alias}.ancestors::text[] AS ancestors, ${alias}.root_id::text AS root_id, ${alias}.depth`;
}

/** A row of chainColumns. */
export interface ChainColumns {
  id: string;
  project_id: string;
  ancestors: string[] | null;
  root_id: string | null;
  depth: number | string | null;
}

export function rowToChain(row: ChainColumns): LinkChain {
  return {
    id: row.id,
    projectId: row.project_id,
    ancestors: row.ancestors,
    rootId: row.root_id,
    depth: row.depth === null ? null : Number(row.depth),
  };
}

/**
 * The rows of `link_chains` for chains at `version` (LinkMirror.mirrorChains); a link without a
 * chain has none, as chainRow (link-mirror.ts) gives for a whole link.
 */
export function chainRows(chains: LinkChain[], version: number): ChainRow[] {
  return chains.flatMap((chain) =>
    chain.ancestors === null || chain.rootId === null
      ? []
      : [
          {
            project_id: chain.projectId,
            link_id: chain.id,
            version,
            root_id: chain.rootId,
            depth: chain.depth ?? chain.ancestors.length,
            ancestors: chain.ancestors,
          },
        ],
  );
}

/** The queries of share chains beyond the row trigger: a re-parent's checks and its subtree's move. */
@Injectable()
export class ChainMovesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Whether giving link `linkId` the parent `parentSvcId` would close a cycle, and how deep its
   * cascade would then reach. The cycle is found by walking `parent` up from the new parent
   * (uq_links_svc_id, at most MAX_CHAIN_DEPTH steps): the parents are current even while a move's
   * job has not yet rewritten the ancestors below it, and links made before chains have none to
   * read. UNION ends the walk on a cycle left in old data. The deepest descendant comes from
   * ix_links_ancestors.
   */
  async findMoveBounds(
    projectId: string,
    linkId: string,
    parentSvcId: string,
    manager?: EntityManager,
  ): Promise<MoveBounds> {
    const [row] = await (manager ?? this.dataSource.manager).query<
      { cycle: boolean; parent_depth: number | string | null; below: number | string | null }[]
    >(
      `WITH RECURSIVE up (id, parent) AS (
         SELECT id, parent FROM links WHERE project_id = $1 AND svc_id = $2
         UNION
         SELECT l.id, l.parent FROM up JOIN links l ON l.project_id = $1 AND l.svc_id = up.parent
         WHERE up.id <> $3::bigint
       )
       SELECT EXISTS (SELECT 1 FROM up WHERE id = $3::bigint) AS cycle,
              (SELECT depth FROM links WHERE project_id = $1 AND svc_id = $2) AS parent_depth,
              (SELECT max(d.depth) - x.depth FROM links d, links x
               WHERE x.id = $3::bigint AND d.project_id = $1
                 AND d.ancestors @> ARRAY[$3::bigint]
               GROUP BY x.depth) AS below`,
      [projectId, parentSvcId, linkId],
    );
    return {
      cycle: row.cycle,
      parentDepth: row.parent_depth === null ? null : Number(row.parent_depth),
      below: row.below === null ? 0 : Math.max(0, Number(row.below)),
    };
  }

  /**
   * Gives the next `limit` descendants of link `linkId` after id `cursor` (ix_links_ancestors) their
   * chain under the link's current one: the part of their ancestors up to and including the link,
   * then the link's ancestors; its root; the link's position in their ancestors plus its depth.
   * Descendants of a link without a chain (its new parent has none yet) lose theirs too, as the
   * row trigger gives none below a parent without one; `analytics:backfill` computes them later.
   * Written from the rows as they are when each is locked, so a batch done again writes the same
   * chains, and a descendant moved out from under the link meanwhile is left as its own move left
   * it. Returns the chains written and the last id looked at (null once none is left).
   */
  async moveDescendants(
    projectId: string,
    linkId: string,
    cursor: string,
    limit: number,
  ): Promise<{ chains: LinkChain[]; last: string | null }> {
    // MATERIALIZED keeps ORDER BY id LIMIT from leading the planner along pk_links: the subtree
    // is found through ix_links_ancestors, then sorted.
    const [row] = await this.dataSource.query<
      { last: string | null; chains: ChainColumns[] | null }[]
    >(
      `WITH subtree AS MATERIALIZED (
         SELECT id FROM links
         WHERE project_id = $1 AND ancestors @> ARRAY[$2::bigint] AND id > $3::bigint
       ), batch AS (
         SELECT id FROM subtree ORDER BY id LIMIT $4
       ), x AS (
         SELECT id, ancestors, root_id, depth FROM links WHERE id = $2::bigint AND project_id = $1
       ), moved AS (
         UPDATE links d SET
           ancestors = CASE WHEN x.ancestors IS NULL THEN NULL
                            ELSE d.ancestors[1:array_position(d.ancestors, x.id)] || x.ancestors END,
           root_id = x.root_id,
           depth = array_position(d.ancestors, x.id) + x.depth
         FROM x
         WHERE d.id IN (SELECT id FROM batch) AND d.ancestors @> ARRAY[x.id]
         RETURNING ${chainColumns('d')}
       )
       SELECT (SELECT max(id)::text FROM batch) AS last, (SELECT json_agg(moved) FROM moved) AS chains`,
      [projectId, linkId, cursor, limit],
    );
    return { chains: (row.chains ?? []).map(rowToChain), last: row.last };
  }
}

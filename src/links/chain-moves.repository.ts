import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { chTime } from '../analytics/analytics-client';
import { ChainRow } from '../analytics/link-mirror';

/** A link's chain as PostgreSQL holds it (migration LinkChains); null fields while it has none. */
export interface LinkChain {
  id: string;
  projectId: string;
  /** Parent first, root last; empty for a root. */
  ancestors: string[] | null;
  rootId: string | null;
  depth: number | null;
  /** When the link was shared (service_postid_shared_at, else its creation). */
  sharedAt: Date;
}

/** What a re-parent would make of a link's cascade (ChainMovesRepository.findMoveBounds). */
export interface MoveBounds {
  /** The new parent is the link itself or one of its descendants. */
  cycle: boolean;
  /** The new parent's depth; null while it has no chain. */
  parentDepth: number | null;
  /** How many links are below the link, counted up to the cap given plus one. */
  descendants: number;
  /** How many generations the link's deepest descendant is below it (0 without descendants). */
  below: number;
}

/** A re-parent whose subtree is still to move (link_chain_moves). */
export interface PendingMove {
  id: string;
  linkId: string;
  /** A later move of the same link is recorded: this one has nothing left to do. */
  superseded: boolean;
}

/** Where a project's moves run while ChainMovesRepository.lockMoves holds them. */
export interface MovesLock {
  /** The connection holding the lock, for the move's own statements; none on PGlite. */
  manager?: EntityManager;
  release(): Promise<void>;
}

/** Advisory lock classes (their first key; the second is the project's hashtext). */
const REPARENT_LOCK = 7_361_420;
const MOVES_LOCK = 7_361_421;

/**
 * The bounds of a re-parent ($1 project, $2 new parent's svc_id, $3 link id, $4 the cap plus one,
 * $5 the most generations a cascade holds, MAX_CHAIN_DEPTH). The cycle is found by walking `parent` up from the new
 * parent (uq_links_svc_id, at most MAX_CHAIN_DEPTH steps): the parents are current even while a
 * move's job has not yet rewritten the ancestors below it, and links made before chains have none
 * to read. UNION ends the walk on a cycle left in old data. The links below are found by walking
 * `parent` down a generation at a time (ix_links_parent), and `below` reads at most $4 of them: a
 * recursive query is evaluated only as far as its reader asks, so a subtree past the cap costs no
 * more than the cap (docs/api.md, "Share chains"). The generation bound ends a walk in a cycle.
 */
export const MOVE_BOUNDS_SQL = `WITH RECURSIVE up (id, parent) AS (
         SELECT id, parent FROM links WHERE project_id = $1 AND svc_id = $2
         UNION
         SELECT l.id, l.parent FROM up JOIN links l ON l.project_id = $1 AND l.svc_id = up.parent
         WHERE up.id <> $3::bigint
       ), down (svc_id, generation) AS (
         SELECT c.svc_id, 1 FROM links x JOIN links c ON c.project_id = $1 AND c.parent = x.svc_id
         WHERE x.id = $3::bigint AND x.project_id = $1
         UNION ALL
         SELECT c.svc_id, d.generation + 1 FROM down d
         JOIN links c ON c.project_id = $1 AND c.parent = d.svc_id
         WHERE d.generation <= $5
       ), below AS MATERIALIZED (
         SELECT generation FROM down LIMIT $4
       )
       SELECT EXISTS (SELECT 1 FROM up WHERE id = $3::bigint) AS cycle,
              (SELECT depth FROM links WHERE project_id = $1 AND svc_id = $2) AS parent_depth,
              (SELECT count(*) FROM below) AS descendants,
              (SELECT max(generation) FROM below) AS below`;

/** The chain columns of `links` under `alias`, as a RETURNING or SELECT list that rowToChain reads. */
export function chainColumns(alias: string): string {
  return `${alias}.id::text AS id, ${alias}.project_id::text AS project_id,
          ${alias}.ancestors::text[] AS ancestors, ${alias}.root_id::text AS root_id, ${alias}.depth,
          COALESCE(${alias}.service_postid_shared_at, ${alias}.created_at) AS shared_at`;
}

/** A row of chainColumns. */
export interface ChainColumns {
  id: string;
  project_id: string;
  ancestors: string[] | null;
  root_id: string | null;
  depth: number | string | null;
  /** A Date from a query, an ISO text from json_agg. */
  shared_at: Date | string;
}

export function rowToChain(row: ChainColumns): LinkChain {
  return {
    id: row.id,
    projectId: row.project_id,
    ancestors: row.ancestors,
    rootId: row.root_id,
    depth: row.depth === null ? null : Number(row.depth),
    sharedAt: new Date(row.shared_at),
  };
}

/**
 * The rows of `link_chains` for chains at `version` (LinkMirror.moveChains); a link without a
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
            shared_at: chTime(chain.sharedAt),
          },
        ],
  );
}

/**
 * The queries of share chains beyond the row trigger: a re-parent's lock and checks, the moves still
 * to run (link_chain_moves) and their lock, and a subtree's move.
 */
@Injectable()
export class ChainMovesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Holds, until the transaction ends, the lock of the project's re-parents: taken before a
   * re-parent's checks, so that two concurrent ones cannot each pass them on the rows the other is
   * about to change (A under B and B under A; docs/api.md, "Security").
   */
  async lockReparents(projectId: string, manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
      REPARENT_LOCK,
      projectId,
    ]);
  }

  /**
   * Whether giving link `linkId` the parent `parentSvcId` would close a cycle, how many links are
   * below it (up to `limits.cap + 1`) and how deep its cascade would then reach, walking at most
   * `limits.depth + 1` generations down (MOVE_BOUNDS_SQL).
   */
  async findMoveBounds(
    projectId: string,
    linkId: string,
    parentSvcId: string,
    limits: { cap: number; depth: number },
    manager?: EntityManager,
  ): Promise<MoveBounds> {
    const [row] = await (manager ?? this.dataSource.manager).query<
      {
        cycle: boolean;
        parent_depth: number | string | null;
        descendants: number | string;
        below: number | string | null;
      }[]
    >(MOVE_BOUNDS_SQL, [projectId, parentSvcId, linkId, limits.cap + 1, limits.depth]);
    return {
      cycle: row.cycle,
      parentDepth: row.parent_depth === null ? null : Number(row.parent_depth),
      descendants: Number(row.descendants),
      below: row.below === null ? 0 : Number(row.below),
    };
  }

  /** Records a re-parent whose subtree is to move, in its transaction; the move's id. */
  async addMove(projectId: string, linkId: string, manager?: EntityManager): Promise<string> {
    const [row] = await (manager ?? this.dataSource.manager).query<{ id: string }[]>(
      `WITH added AS (
         INSERT INTO link_chain_moves (project_id, link_id) VALUES ($1, $2::bigint) RETURNING id
       )
       SELECT id::text AS id FROM added`,
      [projectId, linkId],
    );
    return row.id;
  }

  /** The project's oldest move still to run (ix_link_chain_moves_project, _link). */
  async findNextMove(projectId: string, manager?: EntityManager): Promise<PendingMove | null> {
    const [row] = await (manager ?? this.dataSource.manager).query<
      { id: string; link_id: string; superseded: boolean }[]
    >(
      `SELECT m.id::text AS id, m.link_id::text AS link_id,
              EXISTS (SELECT 1 FROM link_chain_moves l
                      WHERE l.link_id = m.link_id AND l.id > m.id) AS superseded
       FROM link_chain_moves m WHERE m.project_id = $1 ORDER BY m.id LIMIT 1`,
      [projectId],
    );
    return row ? { id: row.id, linkId: row.link_id, superseded: row.superseded } : null;
  }

  async deleteMove(id: string, manager?: EntityManager): Promise<void> {
    await (manager ?? this.dataSource.manager).query(
      `DELETE FROM link_chain_moves WHERE id = $1::bigint`,
      [id],
    );
  }

  async hasMoves(projectId: string): Promise<boolean> {
    const [row] = await this.dataSource.query<{ found: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM link_chain_moves WHERE project_id = $1) AS found`,
      [projectId],
    );
    return row.found;
  }

  /**
   * The lock of the project's moves, held by a connection of its own for the whole run, so that
   * one process at a time moves a project's subtrees while other projects' moves run beside it.
   * Without `wait`, null when another process holds it. On PGlite (one process, one session: a
   * connection held would stop every other query) there is none to take; ChainMoves serialises
   * the project's moves in the process.
   */
  async lockMoves(projectId: string, wait: boolean): Promise<MovesLock | null> {
    if (!('url' in this.dataSource.options && this.dataSource.options.url)) {
      return { release: () => Promise.resolve() };
    }
    const runner = this.dataSource.createQueryRunner();
    const key = [MOVES_LOCK, projectId];
    try {
      if (wait) await runner.query('SELECT pg_advisory_lock($1, hashtext($2))', key);
      else {
        const [row] = await runner.manager.query<{ locked: boolean }[]>(
          'SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked',
          key,
        );
        if (!row.locked) {
          await runner.release();
          return null;
        }
      }
    } catch (error) {
      await runner.release();
      throw error;
    }
    return {
      manager: runner.manager,
      // A connection that broke is dropped from the pool by the driver, its session lock with it.
      release: async () => {
        try {
          await runner.query('SELECT pg_advisory_unlock($1, hashtext($2))', key);
        } finally {
          await runner.release();
        }
      },
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
    manager?: EntityManager,
  ): Promise<{ chains: LinkChain[]; last: string | null }> {
    // MATERIALIZED keeps ORDER BY id LIMIT from leading the planner along pk_links: the subtree
    // is found through ix_links_ancestors, then sorted.
    const [row] = await (manager ?? this.dataSource.manager).query<
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

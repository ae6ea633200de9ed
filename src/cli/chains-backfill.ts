import { DataSource } from 'typeorm';
import { LinkMirror } from '../analytics/link-mirror';
import { MAX_CHAIN_DEPTH } from '../links/chain-limits';
import {
  ChainColumns,
  LinkChain,
  chainColumns,
  chainRows,
  rowToChain,
} from '../links/chain-moves.repository';

/** Links given a chain per statement, and per write to the analytics store. */
const CHUNK = 5_000;

/**
 * The `chains` step of analytics:backfill: the links made before share chains (ancestors null;
 * migration LinkChains) get theirs, roots first: a link without a parent, or whose parent is not a
 * link of its project, is a root; then, pass after pass, the links whose parent has a chain take
 * it (parent first, then the parent's ancestors), until a pass finds none. Links left then hang in
 * a cycle that old data may hold (A's parent B, B's parent A), or below a chain MAX_CHAIN_DEPTH
 * deep: the links of each cycle, and those below such a chain, become roots, and the passes go on
 * below them. Each batch's chains are mirrored to the analytics store's `link_chains`. Setting
 * the chain columns does not fire the row trigger (it fires on `parent`), and `parent` is never
 * written. Resumable by nature: what is left is what has no chain, so a rerun after an
 * interruption takes up the rest, and one after the step finished finds nothing.
 */
export class ChainsBackfill {
  constructor(
    private readonly dataSource: DataSource,
    private readonly mirror: LinkMirror,
  ) {}

  /** Returns the links given a chain; reports them against those without one at the start. */
  async run(onProgress: (done: number, total: number) => void): Promise<number> {
    const total = await this.pending();
    let done = 0;
    onProgress(done, total);
    const mirrored = async (chains: LinkChain[]): Promise<number> => {
      if (chains.length === 0) return 0;
      await this.mirror.moveChains(chainRows(chains, Date.now() * 1000));
      done += chains.length;
      onProgress(done, total);
      return chains.length;
    };
    if (total === 0) return 0;
    for (;;) {
      await this.batches((cursor) => this.rootsAfter(cursor), mirrored);
      while ((await this.batches((cursor) => this.childrenAfter(cursor), mirrored)) > 0);
      if ((await mirrored(await this.stuckRoots())) === 0) break;
    }
    return done;
  }

  private async pending(): Promise<number> {
    const [row] = await this.dataSource.query<{ n: string }[]>(
      `SELECT count(*)::text AS n FROM links WHERE ancestors IS NULL`,
    );
    return Number(row.n);
  }

  /** Runs a batch statement from id 0 on until one gives nothing; returns the chains written. */
  private async batches(
    next: (cursor: string) => Promise<{ chains: LinkChain[]; last: string | null }>,
    mirrored: (chains: LinkChain[]) => Promise<number>,
  ): Promise<number> {
    let cursor = '0';
    let written = 0;
    for (;;) {
      const { chains, last } = await next(cursor);
      if (last === null) return written;
      written += await mirrored(chains);
      cursor = last;
    }
  }

  /**
   * Makes roots of the next links after `cursor` (in pk_links order) without a chain and without a
   * parent in their project (uq_links_svc_id). `last`: the last id looked at, null when none was.
   */
  private rootsAfter(cursor: string): Promise<{ chains: LinkChain[]; last: string | null }> {
    return this.batch(
      `WITH batch AS (
         SELECT c.id FROM links c
         WHERE c.ancestors IS NULL AND c.id > $1::bigint
           AND (c.parent IS NULL OR NOT EXISTS (
                  SELECT 1 FROM links p WHERE p.project_id = c.project_id AND p.svc_id = c.parent))
         ORDER BY c.id LIMIT $2
       ), done AS (
         UPDATE links c SET ancestors = '{}', root_id = c.id, depth = 0
         FROM batch b WHERE c.id = b.id AND c.ancestors IS NULL
         RETURNING ${chainColumns('c')}
       )`,
      [cursor, CHUNK],
    );
  }

  /** Gives the next links after `cursor` without a chain whose parent has one the parent's, below it. */
  private childrenAfter(cursor: string): Promise<{ chains: LinkChain[]; last: string | null }> {
    return this.batch(
      `WITH batch AS (
         SELECT c.id, p.id AS parent_id, p.ancestors, p.root_id, p.depth FROM links c
         JOIN links p ON p.project_id = c.project_id AND p.svc_id = c.parent
         WHERE c.ancestors IS NULL AND c.id > $1::bigint
           AND p.ancestors IS NOT NULL AND p.depth < ${MAX_CHAIN_DEPTH}
         ORDER BY c.id LIMIT $2
       ), done AS (
         UPDATE links c SET ancestors = b.parent_id || b.ancestors, root_id = b.root_id,
                            depth = b.depth + 1
         FROM batch b WHERE c.id = b.id AND c.ancestors IS NULL
         RETURNING ${chainColumns('c')}
       )`,
      [cursor, CHUNK],
    );
  }

  /**
   * Runs a batch statement (`batch`: the ids looked at; `done`: the chains written, without a link
   * the trigger gave one meanwhile) and reads both in one row.
   */
  private async batch(
    statement: string,
    params: unknown[],
  ): Promise<{ chains: LinkChain[]; last: string | null }> {
    const [row] = await this.dataSource.query<
      { last: string | null; chains: ChainColumns[] | null }[]
    >(
      `${statement}
       SELECT (SELECT max(id)::text FROM batch) AS last, (SELECT json_agg(done) FROM done) AS chains`,
      params,
    );
    return { chains: (row.chains ?? []).map(rowToChain), last: row.last };
  }

  /**
   * Makes roots of the links without a chain that the passes cannot reach: those in a cycle (the
   * walk up their parents, among links without a chain, comes back to them; UNION ends a walk that
   * enters a cycle they are not in), and those whose parent's chain is MAX_CHAIN_DEPTH deep.
   */
  private async stuckRoots(): Promise<LinkChain[]> {
    const rows = await this.dataSource.query<ChainColumns[]>(
      `WITH RECURSIVE walk (start, id, parent, project_id) AS (
         SELECT c.id, p.id, p.parent, p.project_id FROM links c
         JOIN links p ON p.project_id = c.project_id AND p.svc_id = c.parent
         WHERE c.ancestors IS NULL AND p.ancestors IS NULL
         UNION
         SELECT w.start, p.id, p.parent, p.project_id FROM walk w
         JOIN links p ON p.project_id = w.project_id AND p.svc_id = w.parent
         WHERE w.id <> w.start AND p.ancestors IS NULL
       ), rooted AS (
         UPDATE links c SET ancestors = '{}', root_id = c.id, depth = 0
         WHERE c.ancestors IS NULL
           AND (c.id IN (SELECT start FROM walk WHERE id = start)
                OR EXISTS (SELECT 1 FROM links p
                           WHERE p.project_id = c.project_id AND p.svc_id = c.parent
                             AND p.depth >= ${MAX_CHAIN_DEPTH}))
         RETURNING ${chainColumns('c')}
       )
       SELECT * FROM rooted`,
    );
    return rows.map(rowToChain);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Share chains' moves, bounded and per project (docs/api.md, "Share chains"; docs/operations.md,
 * "Moving a subtree").
 *
 * `link_chain_moves` holds each re-parent whose subtree is still to move, written in the update's
 * transaction: a project's moves run in the order of their ids, and one whose link has a later row
 * is skipped (superseded). ix_link_chain_moves_project reads a project's next move,
 * ix_link_chain_moves_link a link's later one.
 *
 * ix_links_parent finds a link's children, so url/update counts the links below one a generation at
 * a time and stops past the move cap, instead of reading the whole subtree from ix_links_ancestors.
 */
export class ChainMoves1764040000300 implements MigrationInterface {
  name = 'ChainMoves1764040000300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX ix_links_parent ON links (project_id, parent) WHERE parent IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE link_chain_moves (
        id bigint GENERATED ALWAYS AS IDENTITY,
        project_id uuid NOT NULL,
        link_id bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_link_chain_moves PRIMARY KEY (id),
        CONSTRAINT fk_link_chain_moves_link FOREIGN KEY (link_id) REFERENCES links (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_link_chain_moves_project ON link_chain_moves (project_id, id)`);
    await q.query(`CREATE INDEX ix_link_chain_moves_link ON link_chain_moves (link_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE link_chain_moves`);
    await q.query(`DROP INDEX ix_links_parent`);
  }
}

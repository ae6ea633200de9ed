import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The most generations a cascade holds below its root (docs/api.md, "Share chains"): a link whose
 * parent is this deep is refused (400 naming `parent`), so a chain's ancestors stay a short array.
 */
export const MAX_CHAIN_DEPTH = 255;

/** The SQLSTATE the chain trigger raises when a link would become its own ancestor. */
export const CHAIN_CYCLE_STATE = 'SVC01';
/** The SQLSTATE the chain trigger raises when a parent is MAX_CHAIN_DEPTH deep. */
export const CHAIN_DEPTH_STATE = 'SVC02';

/**
 * Share chains (docs/architecture.md, "Share chains"): each link's ancestors (parent first, root
 * last), its root (itself without a parent) and its depth (0 without a parent).
 *
 * A row trigger sets them from the parent's own chain whenever a link is inserted or its `parent`
 * is written, so every path that makes or re-parents a link (create, batch, static, retweet,
 * share, update) gets them in the same statement, under the same lock as the row. It refuses a
 * parent that would make the link its own ancestor and one MAX_CHAIN_DEPTH deep, each with a
 * SQLSTATE of its own (the link services answer 400 naming `parent`: src/links/chain-refusal.ts).
 * The descendants of a re-parented link are brought up to date by a job (ChainMoves); the GIN
 * index finds them. The code reads these limits from src/links/chain-limits.ts, whose spec checks
 * that they are the literals here.
 *
 * Rows made before this migration keep null chains until `analytics:backfill` (its `chains` step)
 * computes them, roots first; a link whose parent has no chain yet gets none either.
 */
export class LinkChains1764020000000 implements MigrationInterface {
  name = 'LinkChains1764020000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE links
        ADD COLUMN ancestors bigint[] NULL,
        ADD COLUMN root_id bigint NULL,
        ADD COLUMN depth smallint NULL`);
    await q.query(`CREATE INDEX ix_links_ancestors ON links USING gin (ancestors)`);
    await q.query(`
      CREATE FUNCTION links_chain() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        up_id bigint;
        up_ancestors bigint[];
        up_root bigint;
        up_depth smallint;
      BEGIN
        IF NEW.parent IS NULL THEN
          NEW.ancestors := '{}';
          NEW.root_id := NEW.id;
          NEW.depth := 0;
          RETURN NEW;
        END IF;
        SELECT id, ancestors, root_id, depth INTO up_id, up_ancestors, up_root, up_depth
          FROM links WHERE svc_id = NEW.parent AND project_id = NEW.project_id;
        IF up_id = NEW.id OR NEW.id = ANY (up_ancestors) THEN
          RAISE EXCEPTION 'link % cannot be its own ancestor', NEW.svc_id
            USING ERRCODE = '${CHAIN_CYCLE_STATE}';
        END IF;
        IF up_depth >= ${MAX_CHAIN_DEPTH} THEN
          RAISE EXCEPTION 'parent % is % generations deep', NEW.parent, up_depth
            USING ERRCODE = '${CHAIN_DEPTH_STATE}';
        END IF;
        IF up_ancestors IS NULL THEN
          NEW.ancestors := NULL;
          NEW.root_id := NULL;
          NEW.depth := NULL;
        ELSE
          NEW.ancestors := up_id || up_ancestors;
          NEW.root_id := up_root;
          NEW.depth := up_depth + 1;
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER links_chain BEFORE INSERT OR UPDATE OF parent ON links
        FOR EACH ROW EXECUTE FUNCTION links_chain()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER links_chain ON links`);
    await q.query(`DROP FUNCTION links_chain()`);
    await q.query(
      `ALTER TABLE links DROP COLUMN ancestors, DROP COLUMN root_id, DROP COLUMN depth`,
    );
  }
}

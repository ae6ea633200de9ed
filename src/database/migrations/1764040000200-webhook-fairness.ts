import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks that one tenant cannot wear out (docs/architecture.md, "Webhooks and live events"):
 * - `recent_outcomes`: the outcomes of the webhook's last 100 delivery attempts, oldest first, one
 *   character each (`s` a success, `f` a failure), for the breaker (WebhookHealth);
 * - `delivery_count`: the attempts its delivery log holds, kept by a trigger as rows are added
 *   and deleted (pruned, or gone with the webhook), so the deliveries page does not sum the whole
 *   log (counted here from the log as it stands).
 */
export class WebhookFairness1764040000200 implements MigrationInterface {
  name = 'WebhookFairness1764040000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhooks
        ADD COLUMN recent_outcomes text NOT NULL DEFAULT '',
        ADD COLUMN delivery_count bigint NOT NULL DEFAULT 0`);
    await q.query(`
      UPDATE webhooks w SET delivery_count = l.total
      FROM (SELECT webhook_id, sum(cardinality(event_ids)) AS total
            FROM webhook_delivery_log GROUP BY webhook_id) l
      WHERE l.webhook_id = w.id`);
    await q.query(`
      CREATE FUNCTION webhook_delivery_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE webhooks SET delivery_count = delivery_count + cardinality(NEW.event_ids)
          WHERE id = NEW.webhook_id;
        ELSE
          UPDATE webhooks SET delivery_count = greatest(0, delivery_count - cardinality(OLD.event_ids))
          WHERE id = OLD.webhook_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER tr_webhook_delivery_log_count
      AFTER INSERT OR DELETE ON webhook_delivery_log
      FOR EACH ROW EXECUTE FUNCTION webhook_delivery_count()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER tr_webhook_delivery_log_count ON webhook_delivery_log`);
    await q.query(`DROP FUNCTION webhook_delivery_count()`);
    await q.query(`ALTER TABLE webhooks DROP COLUMN recent_outcomes, DROP COLUMN delivery_count`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (docs/api.md, "Webhooks and live events"): each project's webhooks, the events they are
 * told of, and the log of every delivery attempt.
 *
 * - `webhooks`: `events` the event types it listens to; `link_ids` the links `link.clicked` is
 *   limited to (null: every link); `pageviews` whether `conversion.created` includes pageviews
 *   (goals always). After a rotation the previous secret still signs until
 *   `previous_secret_expires_at`. A webhook is disabled by hand (`manual`), by a 410 (`gone`) or
 *   after failing without a success since `failing_since` for too long (`failing`).
 * - `webhook_events`: each event once, its whole body `{id, type, created_at, data}`, so a
 *   redelivery sends the same bytes under the same id; kept for the log's days.
 * - `webhook_deliveries`: one row per attempt, newest first per webhook for the paged log;
 *   `response` the first 1 KB of the receiver's answer.
 */
export class Webhooks1764030000000 implements MigrationInterface {
  name = 'Webhooks1764030000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        subscription_id uuid NOT NULL,
        project_id uuid NOT NULL,
        url text NOT NULL,
        events text[] NOT NULL,
        description text NULL,
        link_ids bigint[] NULL,
        pageviews boolean NOT NULL DEFAULT false,
        secret text NOT NULL,
        previous_secret text NULL,
        previous_secret_expires_at timestamptz NULL,
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text NULL,
        failing_since timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_webhooks PRIMARY KEY (id),
        CONSTRAINT ck_webhooks_disabled_reason
          CHECK (disabled_reason IN ('manual', 'gone', 'failing')),
        CONSTRAINT fk_webhooks_subscription FOREIGN KEY (subscription_id)
          REFERENCES subscriptions (id) ON DELETE CASCADE,
        CONSTRAINT fk_webhooks_project FOREIGN KEY (project_id)
          REFERENCES projects (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_webhooks_project ON webhooks (project_id)`);
    await q.query(`
      CREATE TABLE webhook_events (
        id text NOT NULL,
        project_id uuid NOT NULL,
        type text NOT NULL,
        body jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_webhook_events PRIMARY KEY (id),
        CONSTRAINT fk_webhook_events_project FOREIGN KEY (project_id)
          REFERENCES projects (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX ix_webhook_events_project_created ON webhook_events (project_id, created_at)`,
    );
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id bigint GENERATED ALWAYS AS IDENTITY,
        webhook_id uuid NOT NULL,
        event_id text NOT NULL,
        event_type text NOT NULL,
        attempt integer NOT NULL,
        status_code integer NULL,
        duration_ms integer NOT NULL,
        response text NOT NULL DEFAULT '',
        error text NULL,
        next_retry_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_webhook_deliveries PRIMARY KEY (id),
        CONSTRAINT fk_webhook_deliveries_webhook FOREIGN KEY (webhook_id)
          REFERENCES webhooks (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX ix_webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_events`);
    await q.query(`DROP TABLE webhooks`);
  }
}

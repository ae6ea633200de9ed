import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The delivery log as one row per delivery job and bucket of event ids (DeliveryLog), in place of
 * a row per attempt (`webhook_deliveries`) and a row per event (`webhook_events`): the arrays hold
 * each event's id, type, body as sent (null when not kept), status, duration, first 1 KB of the
 * answer and error. Each attempt of the old log is carried over as a row of one event, with the
 * body the events table kept (a ping's, never kept there, rebuilt). Redelivery finds an event by
 * its bucket (ix_webhook_delivery_log_bucket); the log lists by id (ix_webhook_delivery_log_webhook)
 * and is pruned by age (ix_webhook_delivery_log_created).
 */
export class WebhookDeliveryLog1764030000002 implements MigrationInterface {
  name = 'WebhookDeliveryLog1764030000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_delivery_log (
        id bigint GENERATED ALWAYS AS IDENTITY,
        webhook_id uuid NOT NULL,
        attempt integer NOT NULL,
        bucket bigint NOT NULL,
        event_ids text[] NOT NULL,
        event_types text[] NOT NULL,
        bodies text[] NOT NULL,
        status_codes integer[] NOT NULL,
        durations_ms integer[] NOT NULL,
        responses text[] NOT NULL,
        errors text[] NOT NULL,
        next_retry_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_webhook_delivery_log PRIMARY KEY (id),
        CONSTRAINT fk_webhook_delivery_log_webhook FOREIGN KEY (webhook_id)
          REFERENCES webhooks (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX ix_webhook_delivery_log_webhook ON webhook_delivery_log (webhook_id, id DESC)`,
    );
    await q.query(
      `CREATE INDEX ix_webhook_delivery_log_bucket ON webhook_delivery_log (webhook_id, bucket)`,
    );
    await q.query(
      `CREATE INDEX ix_webhook_delivery_log_created ON webhook_delivery_log (created_at)`,
    );
    // The bucket of an id as eventBucket computes it: its first 12 hex digits over 10,000.
    await q.query(`
      INSERT INTO webhook_delivery_log
        (webhook_id, attempt, bucket, event_ids, event_types, bodies, status_codes, durations_ms,
         responses, errors, next_retry_at, created_at)
      SELECT d.webhook_id, d.attempt,
             floor(('x' || lpad(substr(d.event_id, 5, 12), 16, '0'))::bit(64)::bigint / 10000.0)::bigint,
             ARRAY[d.event_id], ARRAY[d.event_type],
             ARRAY[CASE WHEN d.event_type = 'ping' THEN json_build_object(
               'id', d.event_id, 'type', d.event_type,
               'created_at', to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'data', json_build_object('webhook_id', d.webhook_id))::text
               ELSE e.body::text END],
             ARRAY[d.status_code], ARRAY[d.duration_ms], ARRAY[d.response], ARRAY[d.error],
             d.next_retry_at, d.created_at
      FROM webhook_deliveries d LEFT JOIN webhook_events e ON e.id = d.event_id
      ORDER BY d.id`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_events`);
  }

  async down(q: QueryRunner): Promise<void> {
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
    await q.query(`
      INSERT INTO webhook_deliveries
        (webhook_id, event_id, event_type, attempt, status_code, duration_ms, response, error,
         next_retry_at, created_at)
      SELECT l.webhook_id, u.event_id, u.event_type, l.attempt, u.status_code, u.duration_ms,
             u.response, u.error,
             CASE WHEN u.status_code BETWEEN 200 AND 299 THEN NULL ELSE l.next_retry_at END,
             l.created_at
      FROM webhook_delivery_log l
      CROSS JOIN LATERAL unnest(l.event_ids, l.event_types, l.status_codes, l.durations_ms,
                                l.responses, l.errors) WITH ORDINALITY
        AS u(event_id, event_type, status_code, duration_ms, response, error, ord)
      ORDER BY l.id, u.ord`);
    await q.query(`
      INSERT INTO webhook_events (id, project_id, type, body, created_at)
      SELECT DISTINCT ON (u.event_id) u.event_id, w.project_id, u.event_type, u.body::jsonb,
             l.created_at
      FROM webhook_delivery_log l JOIN webhooks w ON w.id = l.webhook_id
      CROSS JOIN LATERAL unnest(l.event_ids, l.event_types, l.bodies) AS u(event_id, event_type, body)
      WHERE u.event_type <> 'ping' AND u.body IS NOT NULL
      ORDER BY u.event_id, l.id DESC`);
    await q.query(`DROP TABLE webhook_delivery_log`);
  }
}

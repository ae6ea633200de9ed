import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The events of API requests kept in the request's transaction until they are handed over
 * (EventOutbox): a row per request, its events as JSON, due for the sweep 30 s after the commit
 * (ix_event_outbox_due serves the sweep).
 */
export class EventOutbox1764030000003 implements MigrationInterface {
  name = 'EventOutbox1764030000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE event_outbox (
        id bigint GENERATED ALWAYS AS IDENTITY,
        events json NOT NULL,
        due_at timestamptz NOT NULL DEFAULT now() + interval '30 seconds',
        CONSTRAINT pk_event_outbox PRIMARY KEY (id)
      )`);
    await q.query(`CREATE INDEX ix_event_outbox_due ON event_outbox (due_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE event_outbox`);
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { OutgoingEvent } from './project-event';

/** The queries on `event_outbox` (EventOutbox): the events of committed requests not yet handed over. */
@Injectable()
export class EventOutboxRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** In the request's transaction: the events as one row; its id. */
  async insert(manager: EntityManager, events: OutgoingEvent[]): Promise<string> {
    const rows: { id: string }[] = await manager.query(
      // A data-modifying statement inside a SELECT: the driver answers its rows, not a count.
      `WITH kept AS (INSERT INTO event_outbox (events) VALUES ($1::json) RETURNING id::text)
       SELECT id FROM kept`,
      [JSON.stringify(events)],
    );
    return rows[0].id;
  }

  /**
   * Claims up to `limit` rows past their `due_at`, oldest first, by moving their `due_at` a minute
   * on (a row another sweep holds locked is skipped); each row's events.
   */
  async claimDue(limit: number): Promise<{ id: string; events: OutgoingEvent[] }[]> {
    const rows: { id: string; events: OutgoingEvent[] | string }[] = await this.dataSource.query(
      `WITH claimed AS (
         UPDATE event_outbox SET due_at = now() + interval '1 minute'
         WHERE id IN (SELECT id FROM event_outbox WHERE due_at <= now()
                      ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING id::text, events)
       SELECT id, events FROM claimed ORDER BY id::bigint`,
      [limit],
    );
    return rows.map((row) => ({
      id: row.id,
      events:
        typeof row.events === 'string' ? (JSON.parse(row.events) as OutgoingEvent[]) : row.events,
    }));
  }

  /** Deletes rows whose events were handed over. */
  async delete(ids: string[]): Promise<void> {
    await this.dataSource.query('DELETE FROM event_outbox WHERE id = ANY($1::bigint[])', [ids]);
  }
}

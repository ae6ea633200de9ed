import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProjectEvent, eventBucket } from '../events/project-event';
import { DeliveryResult } from './webhook-sender';

/** One attempt's outcome for one event, as the delivery log keeps it. */
export interface AttemptRecord {
  event: ProjectEvent;
  /** The body as it was sent (JSON of `event`): what a redelivery sends again. */
  body: string;
  /** Whether this row stores the body: once per event (DeliveryJob.keep), docs/api.md, "Security". */
  keepBody: boolean;
  result: DeliveryResult;
}

/** One attempt of one event, as the log lists it (webhooks/{id}/deliveries). */
export interface DeliveryRow {
  /** The row's id × 1000 + the event's place in it: later attempts have larger ids. */
  id: number;
  event_id: string;
  event_type: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  response: string;
  error: string | null;
  /** When the event's next attempt is due; null after a success or the last attempt. */
  next_retry_at: Date | null;
  created_at: Date;
}

/** Events one row of the log holds at most (a delivery job has EVENTS_PER_JOB). */
export const EVENTS_PER_ROW = 1000;

/** Rows deleted per statement when the log is pruned. */
const ROWS_PER_DELETE = 1000;

/** A row id and an event's place in it as one delivery id. */
const DELIVERY_ID = `(l.id * ${EVENTS_PER_ROW} + u.ord - 1)`;

/** The row's events, one per line, with their place (1…) in it. */
const UNNEST = `CROSS JOIN LATERAL unnest(
    l.event_ids, l.event_types, l.status_codes, l.durations_ms, l.responses, l.errors
  ) WITH ORDINALITY AS u(event_id, event_type, status_code, duration_ms, response, error, ord)`;

/**
 * The delivery log (`webhook_delivery_log`, docs/architecture.md, "Webhooks and live events"): the
 * attempts of one delivery job whose events' ids fall in one bucket (eventBucket) are one row,
 * with a column of arrays for each field and the bodies as sent. A busy webhook's deliveries cost
 * the database a row per job, not rows and index entries per event. A redelivery finds its event
 * by the id's bucket among the project's webhooks' rows; the log lists attempts newest first.
 */
@Injectable()
export class DeliveryLog {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Appends a job's attempts (one statement); `nextRetryAt` is when its failed events are tried
   * again, null when they are not. Answers the attempts as the log lists them, in `records` order.
   */
  async append(
    webhookId: string,
    attempt: number,
    records: AttemptRecord[],
    nextRetryAt: Date | null,
  ): Promise<DeliveryRow[]> {
    if (records.length === 0) return [];
    const groups = new Map<number, AttemptRecord[]>();
    for (const record of records) {
      const bucket = eventBucket(record.event.id);
      let group = groups.get(bucket);
      if (!group || group.length >= EVENTS_PER_ROW) groups.set(bucket, (group = []));
      group.push(record);
    }
    const params: unknown[] = [webhookId, attempt, nextRetryAt];
    const values: string[] = [];
    const order: AttemptRecord[][] = [];
    for (const [bucket, group] of groups) {
      order.push(group);
      params.push(
        bucket,
        group.map((r) => r.event.id),
        group.map((r) => r.event.type),
        group.map((r) => (r.keepBody ? r.body : null)),
        group.map((r) => r.result.statusCode),
        group.map((r) => Math.round(r.result.durationMs)),
        group.map((r) => r.result.response),
        group.map((r) => r.result.error),
      );
      const n = params.length;
      values.push(
        `($1::uuid, $2::int, $3::timestamptz, $${n - 7}::bigint, $${n - 6}::text[], $${n - 5}::text[], ` +
          `$${n - 4}::text[], $${n - 3}::int[], $${n - 2}::int[], $${n - 1}::text[], $${n}::text[])`,
      );
    }
    // A data-modifying statement inside a SELECT: the driver answers its rows, not a count. The
    // webhook's kept count of attempts (delivery_count) follows by trigger.
    const rows: { id: string; created_at: Date }[] = await this.dataSource.query(
      `WITH logged AS (INSERT INTO webhook_delivery_log
         (webhook_id, attempt, next_retry_at, bucket, event_ids, event_types, bodies,
          status_codes, durations_ms, responses, errors)
       VALUES ${values.join(', ')}
       RETURNING id::text, created_at)
       SELECT * FROM logged ORDER BY id::bigint`,
      params,
    );
    // Identity values follow the VALUES order.
    return order.flatMap((group, g) =>
      group.map((record, i) => ({
        id: Number(rows[g].id) * EVENTS_PER_ROW + i,
        event_id: record.event.id,
        event_type: record.event.type,
        attempt,
        status_code: record.result.statusCode,
        duration_ms: Math.round(record.result.durationMs),
        response: record.result.response,
        error: record.result.error,
        next_retry_at: succeeded(record.result.statusCode) ? null : nextRetryAt,
        created_at: new Date(rows[g].created_at),
      })),
    );
  }

  /**
   * A page of the webhook's attempts, newest first, and how many it has in all: its kept count
   * (webhooks.delivery_count, kept by tr_webhook_delivery_log_count), not a sum over its log.
   */
  async page(webhookId: string, limit: number, offset: number): Promise<[DeliveryRow[], number]> {
    const [rows, totals] = await Promise.all([
      this.dataSource.query<(Omit<DeliveryRow, 'id'> & { id: string })[]>(
        `SELECT ${DELIVERY_ID}::text AS id, u.event_id, u.event_type, l.attempt, u.status_code,
                u.duration_ms, u.response, u.error,
                CASE WHEN u.status_code BETWEEN 200 AND 299 THEN NULL ELSE l.next_retry_at END
                  AS next_retry_at,
                l.created_at
         FROM webhook_delivery_log l ${UNNEST}
         WHERE l.webhook_id = $1
         ORDER BY l.id DESC, u.ord DESC
         LIMIT $2 OFFSET $3`,
        [webhookId, limit, offset],
      ),
      this.dataSource.query<{ total: string }[]>(
        `SELECT delivery_count::text AS total FROM webhooks WHERE id = $1`,
        [webhookId],
      ),
    ]);
    return [
      rows.map((row) => ({
        ...row,
        id: Number(row.id),
        next_retry_at: row.next_retry_at ? new Date(row.next_retry_at) : null,
        created_at: new Date(row.created_at),
      })),
      Number(totals[0]?.total ?? 0),
    ];
  }

  /**
   * The body of an event sent to any webhook of the project (the last one logged), from the rows
   * of the id's bucket; null when the log holds none (or a row carried over from the log of older
   * versions without it).
   */
  async body(projectId: string, id: string): Promise<string | null> {
    const rows: { body: string }[] = await this.dataSource.query(
      `SELECT l.bodies[array_position(l.event_ids, $2)] AS body
       FROM webhook_delivery_log l
       WHERE l.webhook_id IN (SELECT w.id FROM webhooks w WHERE w.project_id = $1)
         AND l.bucket = $3 AND $2 = ANY (l.event_ids)
         AND l.bodies[array_position(l.event_ids, $2)] IS NOT NULL
       ORDER BY l.id DESC LIMIT 1`,
      [projectId, id, eventBucket(id)],
    );
    return rows[0]?.body ?? null;
  }

  /** Deletes the rows older than `days`, in short statements (their webhooks' counts follow). */
  async prune(days: number): Promise<void> {
    for (;;) {
      const deleted: unknown[] = await this.dataSource.query(
        `WITH gone AS (
           DELETE FROM webhook_delivery_log WHERE id IN (
             SELECT id FROM webhook_delivery_log
             WHERE created_at < now() - make_interval(days => $1)
             ORDER BY created_at LIMIT ${ROWS_PER_DELETE})
           RETURNING 1)
         SELECT 1 FROM gone`,
        [days],
      );
      if (deleted.length < ROWS_PER_DELETE) break;
    }
  }
}

/** Whether an answer's status is a success (2xx). */
export function succeeded(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}

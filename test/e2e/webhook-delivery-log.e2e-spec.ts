import { EVENT_BUCKET_MS, ProjectEvent, eventId } from '../../src/events/project-event';
import { AttemptRecord, DeliveryLog } from '../../src/webhooks/delivery-log';
import { createProject } from '../factories/projects';
import { TestApp, createTestApp } from '../support/app';

/**
 * The delivery log (DeliveryLog, docs/architecture.md, "Webhooks and live events") on PostgreSQL:
 * a job's attempts are one row per bucket of event ids, not a row per event; the log pages across
 * rows newest first; an event's body is found by its id for its own project only; rows older than
 * the kept days are pruned.
 */
describe('webhook delivery log', () => {
  let t: TestApp;
  let log: DeliveryLog;
  /** Two projects' ids, each with a webhook. */
  const projects: string[] = [];
  const webhooks: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    log = t.app.get(DeliveryLog);
    for (let i = 0; i < 2; i++) {
      const { api_key } = await createProject(t);
      const {
        rows: [row],
      } = await t.db.query<{ id: string; project_id: string }>(
        `INSERT INTO webhooks (subscription_id, project_id, url, events, secret)
         SELECT subscription_id, id, 'https://hooks.example/', '{link.clicked}', 'whsec_AAAA'
           FROM projects WHERE api_key = $1
         RETURNING id, project_id`,
        [api_key],
      );
      projects.push(row.project_id);
      webhooks.push(row.id);
    }
  }, 60_000);
  afterAll(() => t.close());

  /** An attempt of a link.clicked event at `at` ms, answered `status` (null: no answer). */
  const attempt = (at: number, status: number | null): AttemptRecord => {
    const event: ProjectEvent = {
      id: eventId(undefined, at),
      type: 'link.clicked',
      created_at: new Date(at).toISOString(),
      data: { svc_id: 'abc', at },
    };
    return {
      event,
      body: JSON.stringify(event),
      keepBody: true,
      result: {
        statusCode: status,
        durationMs: 7.4,
        response: status === null ? '' : 'ok',
        error: status === null ? 'timeout' : null,
      },
    };
  };

  it('keeps a job of 250 events in three buckets as three rows, listed newest first', async () => {
    const start = Math.floor(Date.now() / EVENT_BUCKET_MS) * EVENT_BUCKET_MS;
    const records = Array.from({ length: 250 }, (_, i) =>
      // 100 events in each of the first two buckets, 50 in the third; every tenth unanswered.
      attempt(start + Math.floor(i / 100) * EVENT_BUCKET_MS + (i % 100), i % 10 === 0 ? null : 204),
    );
    const retryAt = new Date(Date.now() + 60_000);
    const rows = await log.append(webhooks[0], 2, records, retryAt);
    expect(rows.map((r) => r.event_id)).toEqual(records.map((r) => r.event.id));
    expect(rows[0]).toMatchObject({
      attempt: 2,
      status_code: null,
      error: 'timeout',
      duration_ms: 7,
    });
    expect(rows[0].next_retry_at).toEqual(retryAt);
    expect(rows[1]).toMatchObject({ status_code: 204, response: 'ok', next_retry_at: null });

    const stored = await t.db.query<{ n: number; bucket: string }>(
      `SELECT cardinality(event_ids) AS n, bucket::text FROM webhook_delivery_log
       WHERE webhook_id = $1 ORDER BY id`,
      [webhooks[0]],
    );
    const first = Math.floor(start / EVENT_BUCKET_MS);
    expect(stored.rows).toEqual([
      { n: 100, bucket: String(first) },
      { n: 100, bucket: String(first + 1) },
      { n: 50, bucket: String(first + 2) },
    ]);

    // Pages cross the rows; ids as append answered them, newest first.
    const [page, total] = await log.page(webhooks[0], 120, 20);
    expect(total).toBe(250);
    expect(page.map((r) => r.id)).toEqual(
      rows
        .map((r) => r.id)
        .reverse()
        .slice(20, 140),
    );
    expect(page.map((r) => r.event_id)).toEqual(
      records
        .map((r) => r.event.id)
        .reverse()
        .slice(20, 140),
    );
    const unanswered = page.find((r) => r.status_code === null);
    expect(unanswered?.next_retry_at).toEqual(retryAt);
    expect(page.find((r) => r.status_code === 204)?.next_retry_at).toBeNull();
  });

  it('finds an event by id for its own project only', async () => {
    const at = Date.now() - 3_600_000;
    const records = [attempt(at, 500), attempt(at + 1, 204)];
    await log.append(webhooks[0], 1, records, null);
    expect(await log.body(projects[0], records[1].event.id)).toBe(records[1].body);
    expect(JSON.parse((await log.body(projects[0], records[0].event.id)) ?? '')).toEqual(
      records[0].event,
    );
    // The other project's webhooks never had it.
    expect(await log.body(projects[1], records[1].event.id)).toBeNull();
    // An id of the same moment that was never sent.
    expect(await log.body(projects[0], eventId(undefined, at))).toBeNull();
  });

  it('prunes rows older than the kept days', async () => {
    const records = [attempt(Date.now(), 204)];
    await log.append(webhooks[1], 1, records, null);
    await log.append(webhooks[1], 1, [attempt(Date.now(), 204)], null);
    await t.db.query(
      `UPDATE webhook_delivery_log SET created_at = now() - interval '8 days'
       WHERE id = (SELECT min(id) FROM webhook_delivery_log WHERE webhook_id = $1)`,
      [webhooks[1]],
    );
    await log.prune(7);
    const [page, total] = await log.page(webhooks[1], 10, 0);
    expect(total).toBe(1);
    expect(page[0].event_id).not.toBe(records[0].event.id);
    expect(await log.body(projects[1], records[0].event.id)).toBeNull();
  });
});

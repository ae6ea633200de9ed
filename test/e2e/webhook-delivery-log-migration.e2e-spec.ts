import { DataSource } from 'typeorm';
import { DeliveryLog } from '../../src/webhooks/delivery-log';
import { lastMigration, migratedDatabase, undoThrough } from '../support/migrations';

/**
 * Migration 1764030000002: the delivery log of a row per attempt (`webhook_deliveries`) and the
 * events kept for redelivery (`webhook_events`) become `webhook_delivery_log`, every attempt kept
 * with its event's body; down gives the two tables back.
 */
describe('migration: the delivery log in rows of jobs', () => {
  let dataSource: DataSource;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ dataSource, drop } = await migratedDatabase());
  });
  afterAll(() => drop());

  it('carries every attempt over with its body, and down carries them back', async () => {
    await undoThrough(dataSource, 'WebhookDeliveryLog1764030000002');

    const [{ id: subscription }] = await dataSource.query<{ id: string }[]>(
      `INSERT INTO subscriptions (name, key_hash) VALUES ('s', repeat('a', 64)) RETURNING id`,
    );
    const [{ id: project }] = await dataSource.query<{ id: string }[]>(
      `INSERT INTO projects (subscription_id, name, api_key, default_domain)
       VALUES ($1, 'p', repeat('b', 64), 'svc.test') RETURNING id`,
      [subscription],
    );
    const webhook = '00000000-0000-4000-8000-000000000002';
    const kept = 'evt_5f0c6a1e9d2b4c7a8e3f1b0d2c4a6e8f';
    const gone = 'evt_0000000000000000000000000000dead';
    const ping = 'evt_0192f3c4a1b27c3e9d5f6a7b8c9d0e1f';
    const body = {
      id: kept,
      type: 'link.created',
      created_at: '2026-11-24T16:00:00.000Z',
      data: {},
    };
    await dataSource.query(
      `INSERT INTO webhooks (id, subscription_id, project_id, url, events, secret)
       VALUES ($1, $2, $3, 'https://hooks.example/', '{link.created}', 'whsec_AAAA')`,
      [webhook, subscription, project],
    );
    await dataSource.query(
      `INSERT INTO webhook_events (id, project_id, type, body) VALUES ($1, $2, 'link.created', $3)`,
      [kept, project, JSON.stringify(body)],
    );
    await dataSource.query(
      `INSERT INTO webhook_deliveries
         (webhook_id, event_id, event_type, attempt, status_code, duration_ms, response, error,
          next_retry_at, created_at)
       VALUES ($1, $2, 'link.created', 1, 500, 10, 'oops', NULL, '2026-11-24 16:00:06+00', '2026-11-24 16:00:01+00'),
              ($1, $2, 'link.created', 2, 204, 11, '', NULL, NULL, '2026-11-24 16:00:07+00'),
              ($1, $3, 'link.updated', 1, NULL, 12, '', 'timeout', NULL, '2026-11-24 16:00:08+00'),
              ($1, $4, 'ping', 1, 204, 13, '', NULL, NULL, '2026-11-24 16:00:09+00')`,
      [webhook, kept, gone, ping],
    );

    await dataSource.runMigrations({ transaction: 'each' });
    const log = new DeliveryLog(dataSource);
    const [page, total] = await log.page(webhook, 10, 0);
    expect(total).toBe(4);
    expect(
      page.map(({ event_id, event_type, attempt, status_code, response, error }) => ({
        event_id,
        event_type,
        attempt,
        status_code,
        response,
        error,
      })),
    ).toEqual([
      {
        event_id: ping,
        event_type: 'ping',
        attempt: 1,
        status_code: 204,
        response: '',
        error: null,
      },
      {
        event_id: gone,
        event_type: 'link.updated',
        attempt: 1,
        status_code: null,
        response: '',
        error: 'timeout',
      },
      {
        event_id: kept,
        event_type: 'link.created',
        attempt: 2,
        status_code: 204,
        response: '',
        error: null,
      },
      {
        event_id: kept,
        event_type: 'link.created',
        attempt: 1,
        status_code: 500,
        response: 'oops',
        error: null,
      },
    ]);
    expect(page[3].next_retry_at).toEqual(new Date('2026-11-24T16:00:06Z'));
    expect(page[3].created_at).toEqual(new Date('2026-11-24T16:00:01Z'));
    expect(page[0].id).toBeGreaterThan(page[1].id);
    // The kept event can be redelivered as it was; the one no longer kept cannot; a ping is rebuilt.
    expect(JSON.parse((await log.body(project, kept)) ?? 'null')).toEqual(body);
    expect(await log.body(project, gone)).toBeNull();
    expect(JSON.parse((await log.body(project, ping)) ?? 'null')).toEqual({
      id: ping,
      type: 'ping',
      created_at: '2026-11-24T16:00:09.000Z',
      data: { webhook_id: webhook },
    });

    await undoThrough(dataSource, 'WebhookDeliveryLog1764030000002');
    const back = await dataSource.query<{ event_id: string; attempt: number }[]>(
      `SELECT event_id, attempt FROM webhook_deliveries ORDER BY id`,
    );
    expect(back).toEqual([
      { event_id: kept, attempt: 1 },
      { event_id: kept, attempt: 2 },
      { event_id: gone, attempt: 1 },
      { event_id: ping, attempt: 1 },
    ]);
    const events = await dataSource.query<{ id: string; body: unknown }[]>(
      `SELECT id, body FROM webhook_events`,
    );
    expect(events).toEqual([{ id: kept, body }]);
    await dataSource.runMigrations({ transaction: 'each' });
    expect(await lastMigration(dataSource)).not.toBe('PendingJobs1764030000001');
  });
});

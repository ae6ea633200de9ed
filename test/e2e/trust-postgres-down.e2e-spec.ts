import { Client } from 'pg';
import { TestApp, createTestApp } from '../support/app';
import { BROWSER, stored, waitForClicks } from '../support/clicks';
import { PrivatePostgres, startPrivatePostgres } from '../support/private-postgres';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/**
 * PostgreSQL stopped under a running service, for real (`pg_ctl stop -m fast` on a cluster of the
 * test's own), then started again. Cached redirects answer and are counted; every endpoint that
 * needs PostgreSQL answers 503 with Retry-After in its own shape, quickly; creation recovers by
 * itself (docs/api.md, "Errors"; docs/operations.md, "Crashes and outages").
 */

// initdb, migrations, a stop and a start of a server.
jest.setTimeout(60_000);

/** Well under a client's patience, and under the 5 s connection timeout plus the answer. */
const BOUNDED_MS = 7000;

const LINK_UNAVAILABLE = {
  error: 503,
  error_message: 'The database is temporarily unavailable; retry shortly',
};
const ADMIN_UNAVAILABLE = {
  code: 1008,
  message: 'The database is temporarily unavailable; retry shortly',
};

describe('PostgreSQL stopped and started under the running service', () => {
  let pg: PrivatePostgres;
  let t: TestApp;
  let key: string;
  const database = 'svc';

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    await pg.createMigratedDatabase(database);
    t = await createTestApp({ databaseUrl: () => pg.url(database) });
    key = (
      await createProject(t, {
        conversions: { enabled: true, domains: 'all', goal_1_label: 'Signup' },
      })
    ).api_key;
  });
  afterAll(async () => {
    await t?.close();
    await pg?.close();
  });

  /** The answer and how long it took. */
  async function timed<T>(send: () => Promise<T>): Promise<{ res: T; ms: number }> {
    const started = Date.now();
    const res = await send();
    return { res, ms: Date.now() - started };
  }

  it('redirects cached links and counts them, answers 503 with Retry-After in each shape, and recovers', async () => {
    const link = await createLink(t, key, { url: 'https://example.com/cached' });
    const visit = () =>
      t.http.get(`/${link.path}`).set('Host', 'svc.test').set('User-Agent', BROWSER);
    expect((await visit()).status).toBe(302);

    await pg.stop();

    // The cached link still redirects (with the conversions' parameter, as the project asks).
    const cached = await timed(() => visit());
    expect([cached.res.status, cached.res.headers.location]).toEqual([
      302,
      `https://example.com/cached?svc=${link.svc_id}`,
    ]);

    // Creation: the link shape.
    const create = await timed(() =>
      t.http
        .post('/url.json')
        .type('form')
        .send({ v: '3', key, tool: 't', channel: 'email', url: 'https://example.com/new' }),
    );
    expect([create.res.status, create.res.headers['retry-after'], create.res.body]).toEqual([
      503,
      '5',
      LINK_UNAVAILABLE,
    ]);
    expect(create.ms).toBeLessThan(BOUNDED_MS);

    // The link list: the link shape too.
    const list = await timed(() => t.http.get('/url/list.json').query({ v: '3', key }));
    expect([list.res.status, list.res.headers['retry-after'], list.res.body]).toEqual([
      503,
      '5',
      LINK_UNAVAILABLE,
    ]);

    // Administration: the admin shape, the request echoed.
    const admin = await timed(() =>
      t.http
        .post('/projects/list')
        .type('form')
        .send({ subscription_key: t.subscriptionKey, application_key: t.applicationKey }),
    );
    expect([admin.res.status, admin.res.headers['retry-after'], admin.res.body]).toEqual([
      503,
      '5',
      {
        request: {
          subscription_key: t.subscriptionKey,
          application_key: t.applicationKey,
          method: 'list',
          object: 'project',
        },
        error: ADMIN_UNAVAILABLE,
      },
    ]);
    expect(admin.ms).toBeLessThan(BOUNDED_MS);

    // Conversions: the admin shape.
    const conversion = await timed(() =>
      t.http
        .get('/conversions/new')
        .query({ key, svc_url: link.svc_id, conversion_type: 'goal_1', conversion_value: '1' }),
    );
    expect([
      conversion.res.status,
      conversion.res.headers['retry-after'],
      conversion.res.body,
    ]).toEqual([
      503,
      '5',
      {
        request: {
          key,
          svc_url: link.svc_id,
          conversion_type: 'goal_1',
          conversion_value: '1',
          action: 'new',
          controller: 'conversion',
        },
        error: ADMIN_UNAVAILABLE,
      },
    ]);
    expect(conversion.ms).toBeLessThan(BOUNDED_MS);

    await pg.start();

    // Creation recovers by itself, without a restart of the service.
    const recovered = await t.http
      .post('/url.json')
      .type('form')
      .send({ v: '3', key, tool: 't', channel: 'email', url: 'https://example.com/after' });
    expect([recovered.status, recovered.body.original_url]).toEqual([
      200,
      'https://example.com/after',
    ]);

    // Both clicks of the cached link are counted, the one during the outage included.
    const db = new Client({ connectionString: pg.url(database) });
    await db.connect();
    try {
      const expected = { [link.svc_id]: { clicks: 2, bots: 0 } };
      expect(await waitForClicks({ db, analytics: t.analytics }, expected)).toEqual(
        stored(expected),
      );
    } finally {
      await db.end();
    }
  });
});

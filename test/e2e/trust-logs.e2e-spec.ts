import { randomBytes } from 'node:crypto';
import { QueryFailedError } from 'typeorm';
import { ProjectsRepository } from '../../src/projects/projects.repository';
import { TestApp, createTestApp } from '../support/app';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';
import { logCapture } from '../support/log-capture';

/**
 * No secret in the service's log (docs/operations.md, "Secrets in logs"). Every request carries
 * the secrets (keys, passwords) in its query, JSON body, form body or path, succeeds or fails (403,
 * 400, 404, 500), and the log read back holds none of them, only the marker.
 */
describe('logs carry no secrets', () => {
  let t: TestApp;
  const log = logCapture();
  let apiKey: string;
  const hex = () => randomBytes(32).toString('hex');
  // Secrets that reach the service but name nothing: a mistyped key is still someone's secret.
  const wrongKey = hex();
  const unknownProject = hex();
  const failingKey = hex();
  const publishableKey = `pk_${randomBytes(16).toString('hex')}`;
  const password = `open-sesame-${randomBytes(6).toString('hex')}`;
  const wrongPassword = `guess-${randomBytes(6).toString('hex')}`;
  const wrongSubscriptionKey = `sub_${randomBytes(12).toString('hex')}`;

  beforeAll(async () => {
    t = await createTestApp({ logDestination: log.destination, env: { LOG_LEVEL: 'debug' } });
    apiKey = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  it('redacts keys and passwords in every line: paths, query strings, bodies and errors', async () => {
    const admin = { subscription_key: t.subscriptionKey, application_key: t.applicationKey };
    // Administration: the project's API key is in the path (200, 403, 404).
    await t.http.get(`/projects/${apiKey}/show`).query(admin).expect(200);
    await t.http
      .post(`/projects/${apiKey}/show`)
      .type('form')
      .send({ ...admin, subscription_key: wrongSubscriptionKey })
      .expect(403);
    await t.http.post(`/projects/${unknownProject}/show`).send(admin).expect(404);
    // Links: keys and passwords in the query, a JSON body and a form body (200, 400, 403).
    const link = await createLink(t, apiKey, { password, publishable_key: publishableKey });
    await t.http
      .get('/url.json')
      .query({ v: '3', key: apiKey, url: 'not a url', password, publishable_key: publishableKey })
      .expect(400);
    await t.http
      .post('/url.json')
      .send({ v: '3', key: wrongKey, url: 'https://example.com/', password })
      .expect(403);
    await t.http
      .post('/url.json')
      .type('form')
      .send({ v: '3', key: apiKey, url: 'https://example.com/', password: '' })
      .expect(400);
    // Conversions (not enabled for the project) and statistics: the key in the query (403).
    await t.http.get('/conversions/new').query({ key: apiKey, svc_url: 'nope' }).expect(403);
    await t.http.get('/stats/totals.json').query({ v: '3', key: wrongKey }).expect(403);
    // The password form: a wrong password and the right one, posted to the link's own address.
    await t.http
      .post(`/${link.path}`)
      .set('Host', 'svc.test')
      .type('form')
      .send({ password: wrongPassword })
      .expect(401);
    await t.http
      .post(`/${link.path}`)
      .set('Host', 'svc.test')
      .type('form')
      .send({ password })
      .expect(302);
    // An unexpected failure (500) is logged with its URL and its error, a failed query's
    // parameters included.
    const lookup = jest
      .spyOn(t.app.get(ProjectsRepository), 'findLiveByApiKey')
      .mockImplementation((key) =>
        Promise.reject(
          new QueryFailedError(
            'SELECT * FROM "projects" WHERE "api_key" = $1',
            [key],
            new Error(`canceling statement due to statement timeout (${key})`),
          ),
        ),
      );
    const failed = await t.http
      .get('/url.json')
      .query({ v: '3', key: failingKey, url: 'https://example.com/', password })
      .expect(500);
    lookup.mockRestore();
    expect(failed.body).toEqual({
      error: 500,
      error_message: `Internal error; quote request id ${failed.headers['x-request-id']} when reporting it`,
    });

    const secrets = {
      apiKey,
      wrongKey,
      unknownProject,
      failingKey,
      publishableKey,
      password,
      wrongPassword,
      subscriptionKey: t.subscriptionKey,
      applicationKey: t.applicationKey,
      wrongSubscriptionKey,
    };
    const lines = log.lines();
    expect(Object.entries(secrets).filter(([, secret]) => log.text().includes(secret))).toEqual([]);

    // The lines are there, with the marker where the secrets were.
    const paths = lines
      .map((line) => (line.req as { path?: string } | undefined)?.path)
      .filter((path) => path?.startsWith('/projects/'));
    expect(paths).toEqual([
      '/projects/new',
      '/projects/[REDACTED]/show',
      '/projects/[REDACTED]/show',
      '/projects/[REDACTED]/show',
    ]);
    const unexpected = lines.find((line) => line.msg === 'unexpected error on GET /url.json');
    expect(unexpected?.url).toBe(
      '/url.json?v=3&key=[REDACTED]&url=https%3A%2F%2Fexample.com%2F&password=[REDACTED]',
    );
    expect(unexpected?.err).toMatchObject({
      type: 'QueryFailedError',
      message: 'canceling statement due to statement timeout ([REDACTED])',
      query: 'SELECT * FROM "projects" WHERE "api_key" = $1',
      parameters: '[REDACTED]',
    });
  });
});

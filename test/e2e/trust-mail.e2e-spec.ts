import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TestApp, createTestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { WebhookReceiver } from '../support/webhook-receiver';
import { adminPost } from '../factories/admin';
import { createProject } from '../factories/projects';

/** An admin address that, as a mail's file name, it climbs out of DATA_DIR/outbox into ../tmp. */
const TRAVERSAL = 'x/../../../tmp/pwn@a.b';

/**
 * docs/operations.md, "Mail": an outbox file is named by ids only and stays in the outbox, and an
 * e-mail address is checked by the `validator` package (docs/api.md, "Administration"). The
 * attack: an admin's address such as `x/../../../tmp/pwn@a.b` became part of the disabled-webhook
 * mail's file name and wrote outside the outbox.
 */
describe('mail cannot be written outside the outbox', () => {
  let t: TestApp;
  let base: string;
  let key: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    // DATA_DIR is base/data, so the traversal would land in base/tmp, a folder the test made.
    base = mkdtempSync(path.join(tmpdir(), 'svc-mail-'));
    mkdirSync(path.join(base, 'tmp'));
    const url = await receiver.start();
    t = await createTestApp({
      env: { DATA_DIR: path.join(base, 'data'), WEBHOOK_ALLOW_LOOPBACK: 'true' },
    });
    key = (await createProject(t)).api_key;
    const res = await admin('/webhooks/new', {
      project: key,
      url,
      events: ['link.created'],
    }).expect(200);
    receiver.secrets = [
      (res.body as { response: { webhook: { secret: string } } }).response.webhook.secret,
    ];
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
    rmSync(base, { recursive: true, force: true });
  });

  const admin = (route: string, json: unknown) => adminPost(t, route, json);

  async function userCount(email: string): Promise<number> {
    const result = await t.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM users WHERE email = $1',
      [email],
    );
    return Number(result.rows[0].n);
  }

  it.each([
    ['projects/new', () => '/projects/new', { name: 'mailed', admins: [TRAVERSAL] }],
    ['projects/update', () => `/projects/${key}/update`, { sharers: TRAVERSAL }],
  ])('%s refuses the address with 400 naming the field', async (_name, route, object) => {
    const res = await admin(route(), object).expect(400);
    const field = 'admins' in object ? 'json.admins[0]' : 'json.sharers';
    expect(res.body.error).toEqual({
      code: 1002,
      message: `Invalid parameter ${field}: "${TRAVERSAL}" is not a valid e-mail address`,
    });
    expect(await userCount(TRAVERSAL)).toBe(0);
  });

  it('names the disabled-webhook mail of an admin stored with that address by ids, inside the outbox', async () => {
    // An address accepted before the validator, still in the users table (on today's main, the
    // tests above have just stored it).
    const projectId = (
      await t.db.query<{ id: string }>('SELECT id FROM projects WHERE api_key = $1', [key])
    ).rows[0].id;
    const userId = (
      await t.db.query<{ id: string }>(
        `INSERT INTO users (id, email, username, name) VALUES (gen_random_uuid(), $1, 'pwn', 'pwn')
         ON CONFLICT (email) DO UPDATE SET name = EXCLUDED.name RETURNING id`,
        [TRAVERSAL],
      )
    ).rows[0].id;
    await t.db.query(
      `INSERT INTO project_users (project_id, user_id, role) VALUES ($1, $2, 'admin')
       ON CONFLICT (project_id, user_id) DO UPDATE SET role = 'admin'`,
      [projectId, userId],
    );
    const webhookId = (
      await t.db.query<{ id: string }>('SELECT id FROM webhooks WHERE project_id = $1', [projectId])
    ).rows[0].id;
    receiver.answer = () => 410;
    await t.http
      .get('/url.json')
      .query({ v: '3', key, tool: 't', channel: 'email', url: 'https://shop.example/' })
      .expect(200);
    const outbox = t.config.outboxDir;
    const mails = () =>
      existsSync(outbox) ? readdirSync(outbox).filter((f) => f.includes(webhookId)) : [];
    await eventually('the disabled-webhook mail', async () => {
      await t.settle();
      return mails().length === 1 || existsSync(path.join(base, 'tmp', 'pwn@a.b.eml'));
    });
    expect(readdirSync(path.join(base, 'tmp'))).toEqual([]);
    expect(mails()).toEqual([
      expect.stringMatching(new RegExp(`^webhook-disabled-${webhookId}-\\d+-${userId}\\.eml$`)),
    ]);
    const eml = readFileSync(path.join(outbox, mails()[0]), 'utf8');
    expect(eml).toContain(`To: ${TRAVERSAL}\r\n`);
    expect(eml).toContain('410 Gone');
  });
});

import crypto from 'node:crypto';
import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';
import { createLink } from '../factories/links';

/**
 * A link password is hashed (scrypt, about 50 ms of a thread) by the services once the request has
 * passed the checks that need no hash: a request refused for its link or its input costs none, and
 * a batch hashes its one password once (docs/api.md, "Link controls").
 */
describe('link controls: when a password is hashed', () => {
  let t: TestApp;
  let key: string;
  let scrypt: jest.SpyInstance;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t)).api_key;
  });
  beforeEach(() => {
    scrypt = jest.spyOn(crypto, 'scrypt');
  });
  afterEach(() => scrypt.mockRestore());
  afterAll(() => t.close());

  const send = (path: string, params: Record<string, string>) =>
    t.http
      .post(path)
      .type('form')
      .send({ v: '3', key, tool: 'publisher-sharebar', ...params });

  it('update of an unknown link or another project’s: 404, no hash', async () => {
    const other = await createProject(t);
    const foreign = await createLink(t, other.api_key);
    for (const id of ['localhost:3000_nope', foreign.svc_id]) {
      const res = await send(`/url/update/${id}.json`, { password: 'secret' }).expect(404);
      expect(res.body).toEqual({ error: 404, error_message: `No link ${id} in this project` });
    }
    expect(scrypt).not.toHaveBeenCalled();
  });

  it('update refused (older than 30 days with metadata, a path given): 400, no hash; controls only: hashed once', async () => {
    const link = await createLink(t, key);
    await t.db.query(`UPDATE links SET created_at = now() - interval '31 days' WHERE svc_id = $1`, [
      link.svc_id,
    ]);
    const res = await send(`/url/update/${link.svc_id}.json`, {
      password: 'secret',
      notes: 'late',
    }).expect(400);
    expect(res.body).toEqual({
      error: 400,
      error_message: `Link ${link.svc_id} was created more than 30 days ago; links can be updated only within 30 days of creation`,
    });
    const fresh = await createLink(t, key);
    const path = await send(`/url/update/${fresh.svc_id}.json`, {
      password: 'secret',
      path: 'other',
    }).expect(400);
    expect(path.body).toEqual({
      error: 400,
      error_message: 'Invalid parameter path: cannot change on an existing link',
    });
    expect(scrypt).not.toHaveBeenCalled();
    const ok = await send(`/url/update/${link.svc_id}.json`, { password: 'secret' }).expect(200);
    expect((ok.body as { password_protected: boolean }).password_protected).toBe(true);
    expect(scrypt).toHaveBeenCalledTimes(1);
  });

  it('create, batch and static refused for their input: no hash; a batch of three: one hash', async () => {
    const link = { channel: 'twitter', url: 'https://example.com/page', password: 'secret' };
    const refused = [
      ['/url.json', { ...link, domain: 'elsewhere.example' }, 403],
      ['/url.json', { ...link, path: 'a b' }, 400],
      ['/url/batch.json', { ...link, channel: '' }, 400],
      ['/url/static.json', { ...link, url: '' }, 400],
    ] as const;
    for (const [path, params, status] of refused) {
      await send(path, params).expect(status);
    }
    expect(scrypt).not.toHaveBeenCalled();
    const batch = await t.http
      .post('/url/batch.json')
      .type('form')
      .send(
        `v=3&key=${key}&tool=t&channel=sms&password=secret` +
          '&url[]=https://example.com/1&url[]=https://example.com/2&url[]=https://example.com/3',
      )
      .expect(200);
    expect((batch.body as { svc_urls: { password_protected: boolean }[] }).svc_urls).toHaveLength(
      3,
    );
    expect(scrypt).toHaveBeenCalledTimes(1);
  });
});

import { TestApp, createTestApp } from '../support/app';
import { LINK_FIELDS } from '../factories/links';
import { createProject } from '../factories/projects';

describe('url.{format}: create', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const base = () => ({
    v: '3',
    key,
    tool: 'publisher-sharebar',
    channel: 'twitter',
    url: 'https://example.com/a?b=1',
  });

  it('creates a link with every 2.1 field', async () => {
    const res = await t.http.post('/url.json').type('form').send(base()).expect(200);
    const body = res.body;
    expect(Object.keys(body).sort()).toEqual(LINK_FIELDS);
    expect(body.path).toMatch(/^[0-9A-Za-z]{7}$/);
    expect(body).toEqual({
      svc_url: `http://svc.test/${body.path}`,
      svc_id: `svc.test_${body.path}`,
      domain: 'svc.test',
      path: body.path,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      redirect_url: 'https://example.com/a?b=1',
      original_url: 'https://example.com/a?b=1',
      channel: 'twitter',
      service: 'twitter',
      tool: 'publisher-sharebar',
      application: 'publisher',
      parent: null,
      sharer_id: null,
      username: null,
      service_userid: null,
      service_postid: null,
      service_postid_metadata: { reach: null, shared_at: null },
      campaign: null,
      campaign_metadata: { description: null, name: null },
      user_id: null,
      user_id_metadata: { icon_url: null, username: null, profile_url: null },
      tag: null,
      notes: null,
    });
  });

  it('answers txt with the bare svc_url and JSON-P with callback', async () => {
    const txt = await t.http.get('/url.txt').query(base()).expect(200);
    expect(txt.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(txt.text).toMatch(/^http:\/\/svc\.test\/[0-9A-Za-z]{7}$/);
    const jsonp = await t.http
      .get('/url.json')
      .query({ ...base(), callback: 'cb.done' })
      .expect(200);
    expect(jsonp.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(jsonp.text).toMatch(
      /^cb\.done\(\{"svc_url":"http:\/\/svc\.test\/[0-9A-Za-z]{7}",.*\}\);$/,
    );
  });

  it('refuses other formats, bad versions and keys', async () => {
    const xml = await t.http.get('/url.xml').query(base()).expect(400);
    expect(xml.body).toEqual({
      error: 400,
      error_message: 'Invalid parameter format: "xml" is not supported; use json or txt',
    });
    const noV = await t.http
      .get('/url.json')
      .query({ ...base(), v: undefined })
      .expect(400);
    expect(noV.body).toEqual({ error: 400, error_message: 'Missing required parameter: v' });
    const v2 = await t.http
      .get('/url.json')
      .query({ ...base(), v: '2' })
      .expect(400);
    expect(v2.body).toEqual({ error: 400, error_message: 'Invalid parameter v: must be 3' });
    const badKey = await t.http
      .get('/url.json')
      .query({ ...base(), key: 'nope' })
      .expect(403);
    expect(badKey.body).toEqual({ error: 403, error_message: 'Invalid API key specified' });
    const txtErr = await t.http
      .get('/url.txt')
      .query({ ...base(), key: 'nope' })
      .expect(403);
    expect(txtErr.text).toBe('Invalid API key specified');
    const jsonpErr = await t.http
      .get('/url.json')
      .query({ ...base(), key: 'nope', callback: 'cb' })
      .expect(403);
    expect(jsonpErr.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(jsonpErr.text).toBe('cb({"error":403,"error_message":"Invalid API key specified"});');
    const postJsonpErr = await t.http
      .post('/url.json')
      .type('form')
      .send({ ...base(), key: 'nope', callback: 'cb' })
      .expect(403);
    expect(postJsonpErr.text).toBe(
      'cb({"error":403,"error_message":"Invalid API key specified"});',
    );
    const txtJsonp = await t.http
      .get('/url.txt')
      .query({ ...base(), callback: 'cb' })
      .expect(400);
    expect(txtJsonp.text).toBe('Invalid parameter callback: requires the json format');
    const badCallback = await t.http
      .get('/url.json')
      .query({ ...base(), callback: 'alert(1)' })
      .expect(400);
    expect(badCallback.body).toEqual({
      error: 400,
      error_message:
        'Invalid parameter callback: must be a JavaScript identifier ([A-Za-z_$][\\w$.]*)',
    });
  });

  it('requires tool, channel and an absolute http(s) url', async () => {
    for (const [name, message] of [
      ['tool', 'Missing required parameter: tool'],
      ['channel', 'Missing required parameter: channel'],
      ['url', 'Missing required parameter: url'],
    ]) {
      const res = await t.http
        .get('/url.json')
        .query({ ...base(), [name]: undefined })
        .expect(400);
      expect(res.body).toEqual({ error: 400, error_message: message });
    }
    const bad = await t.http
      .get('/url.json')
      .query({ ...base(), url: 'javascript:alert(1)' })
      .expect(400);
    expect(bad.body).toEqual({
      error: 400,
      error_message: 'Invalid parameter url: must be an absolute http(s) URL',
    });
  });
});

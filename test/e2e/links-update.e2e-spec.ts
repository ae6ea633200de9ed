import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';
import { ISO_SECONDS, LINK_FIELDS, createLink } from '../factories/links';

describe('url/update/{svc_id}.{format}', () => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  let annId: string;
  beforeAll(async () => {
    t = await createTestApp();
    const project = (await createProject(t, { sharers: ['ann@example.com'] })) as unknown as {
      api_key: string;
      sharers: { sharer_id: string }[];
    };
    key = project.api_key;
    annId = project.sharers[0].sharer_id;
    otherKey = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const update = (id: string, params: Record<string, string> = {}, k = key) =>
    t.http
      .post(`/url/update/${id}.json`)
      .type('form')
      .send({ v: '3', key: k, tool: 'publisher-updater', ...params });
  const setCreatedAt = (id: string, interval: string) =>
    t.db.query(`UPDATE links SET created_at = now() - $2::interval WHERE svc_id = $1`, [
      id,
      interval,
    ]);

  it('changes only the given fields and answers the full record plus updated_at', async () => {
    const link = await createLink(t, key, { tag: 'before', notes: 'old notes', user_id: 'U1' });
    const res = await update(link.svc_id, { tag: 'after' }).expect(200);
    expect(Object.keys(res.body).sort()).toEqual([...LINK_FIELDS, 'updated_at'].sort());
    expect(res.body.updated_at).toMatch(ISO_SECONDS);
    expect(res.body).toEqual({ ...link, tag: 'after', updated_at: res.body.updated_at });
  });

  it('records service_postid, reach and shared_at in service_postid_metadata', async () => {
    const link = await createLink(t, key);
    const res = await update(link.svc_id, {
      service_postid: 'twitter:1234567890',
      service_postid_reach: '1500',
      service_postid_shared_at: '2026-01-02T03:04:05Z',
    }).expect(200);
    expect(res.body.service_postid).toBe('twitter:1234567890');
    expect(res.body.service_postid_metadata).toEqual({
      reach: 1500,
      shared_at: '2026-01-02T03:04:05Z',
    });
    const date = await update(link.svc_id, { service_postid_shared_at: '2026-02-03' }).expect(200);
    expect(date.body.service_postid_metadata).toEqual({
      reach: 1500,
      shared_at: '2026-02-03T00:00:00Z',
    });
    expect(date.body.service_postid).toBe('twitter:1234567890');
  });

  it('refuses a service_postid of another service, a bad reach and a bad shared_at', async () => {
    const link = await createLink(t, key);
    const cases: [Record<string, string>, string][] = [
      [
        { service_postid: 'facebook:1' },
        'Invalid parameter service_postid: service "facebook" does not match the channel\'s service "twitter"',
      ],
      [
        { service_postid_reach: '-3' },
        'Invalid parameter service_postid_reach: must be a non-negative integer',
      ],
      [
        { service_postid_reach: 'many' },
        'Invalid parameter service_postid_reach: must be a non-negative integer',
      ],
      [
        { service_postid_shared_at: 'yesterday' },
        'Invalid parameter service_postid_shared_at: must be a date (YYYY-MM-DD), a timestamp (ISO 8601) or UNIX seconds',
      ],
    ];
    for (const [params, message] of cases) {
      const res = await update(link.svc_id, params).expect(400);
      expect(res.body).toEqual({ error: 400, error_message: message });
    }
  });

  it('refuses a new channel that does not fit the service ids the link keeps, unless they come anew', async () => {
    const link = await createLink(t, key, { service_userid: 'twitter:123' });
    await update(link.svc_id, { service_postid: 'twitter:9' }).expect(200);
    const res = await update(link.svc_id, { channel: 'facebook-post' }).expect(400);
    expect(res.body).toEqual({
      error: 400,
      error_message:
        "Invalid parameter channel: facebook-post does not match the link's service_userid twitter:123; give service_userid for the new channel too",
    });
    const postid = await update(link.svc_id, {
      channel: 'facebook-post',
      service_userid: 'facebook:5',
    }).expect(400);
    expect(postid.body.error_message).toBe(
      "Invalid parameter channel: facebook-post does not match the link's service_postid twitter:9; give service_postid for the new channel too",
    );
    const both = await update(link.svc_id, {
      channel: 'facebook-post',
      service_userid: 'facebook:5',
      service_postid: 'facebook:6',
    }).expect(200);
    expect([
      both.body.channel,
      both.body.service,
      both.body.service_userid,
      both.body.service_postid,
    ]).toEqual(['facebook-post', 'facebook', 'facebook:5', 'facebook:6']);
    // A channel of the same service keeps them.
    const same = await update(link.svc_id, { channel: 'facebook-share' }).expect(200);
    expect(same.body.service_userid).toBe('facebook:5');
  });

  it('updates metadata: channel (and service), campaign, notes, parent, sharer, user_id with its metadata', async () => {
    const parent = await createLink(t, key);
    const link = await createLink(t, key);
    const res = await update(link.svc_id, {
      channel: 'facebook-post',
      service_userid: 'facebook:77',
      campaign: 'Spring Update',
      campaign_description: 'Spring',
      notes: 'new notes',
      parent: parent.svc_id,
      sharer_id: annId,
      user_id: 'U7',
      user_id_username: 'seven',
    }).expect(200);
    expect(res.body).toMatchObject({
      channel: 'facebook-post',
      service: 'facebook',
      service_userid: 'facebook:77',
      campaign: 'spring_update',
      campaign_metadata: { description: 'Spring', name: 'Spring Update' },
      notes: 'new notes',
      parent: parent.svc_id,
      sharer_id: annId,
      username: 'ann',
      user_id: 'U7',
      user_id_metadata: { icon_url: null, username: 'seven', profile_url: null },
      tool: link.tool,
    });
  });

  it('never changes original_url, redirect_url or created_at', async () => {
    const link = await createLink(t, key);
    for (const [name, value] of [
      ['domain', 'svc.test'],
      ['path', 'new-path'],
    ]) {
      const res = await update(link.svc_id, { [name]: value }).expect(400);
      expect(res.body).toEqual({
        error: 400,
        error_message: `Invalid parameter ${name}: cannot change on an existing link`,
      });
    }
    const res = await update(link.svc_id, {
      original_url: 'https://evil.example/',
      redirect_url: 'https://evil.example/',
      created_at: '2020-01-01',
    }).expect(200);
    expect([res.body.original_url, res.body.redirect_url, res.body.created_at]).toEqual([
      link.original_url,
      link.redirect_url,
      link.created_at,
    ]);
  });

  it('accepts links created within 30 days and refuses older ones (400 naming the rule)', async () => {
    const recent = await createLink(t, key);
    await setCreatedAt(recent.svc_id, '29 days 23 hours');
    expect((await update(recent.svc_id, { tag: 'ok' }).expect(200)).body.tag).toBe('ok');
    const old = await createLink(t, key);
    await setCreatedAt(old.svc_id, '30 days 1 minute');
    const res = await update(old.svc_id, { tag: 'late' }).expect(400);
    expect(res.body).toEqual({
      error: 400,
      error_message: `Link ${old.svc_id} was created more than 30 days ago; links can be updated only within 30 days of creation`,
    });
    const row = await t.db.query('SELECT tag FROM links WHERE svc_id = $1', [old.svc_id]);
    expect(row.rows).toEqual([{ tag: null }]);
  });

  it('answers 404 for an unknown id and for another project’s link', async () => {
    const unknown = await update('svc.test_doesnotexist').expect(404);
    expect(unknown.body).toEqual({
      error: 404,
      error_message: 'No link svc.test_doesnotexist in this project',
    });
    const theirs = await createLink(t, otherKey);
    const res = await update(theirs.svc_id, { tag: 'mine' }).expect(404);
    expect(res.body).toEqual({
      error: 404,
      error_message: `No link ${theirs.svc_id} in this project`,
    });
    const row = await t.db.query('SELECT tag FROM links WHERE svc_id = $1', [theirs.svc_id]);
    expect(row.rows).toEqual([{ tag: null }]);
  });

  it('finds links with a custom path containing /', async () => {
    const link = await createLink(t, key, { path: 'deep/page' });
    const res = await update('svc.test_deep_page', { tag: 'deep' }).expect(200);
    expect([res.body.svc_id, res.body.svc_url, res.body.tag]).toEqual([
      'svc.test_deep_page',
      link.svc_url,
      'deep',
    ]);
  });

  it('works on GET, answers txt and JSON-P, refuses other formats', async () => {
    const link = await createLink(t, key);
    const get = await t.http
      .get(`/url/update/${link.svc_id}.json`)
      .query({ v: '3', key, tool: 'x', tag: 'g' })
      .expect(200);
    expect(get.body.tag).toBe('g');
    const txt = await t.http
      .post(`/url/update/${link.svc_id}.txt`)
      .type('form')
      .send({ v: '3', key, tool: 'x' })
      .expect(200);
    expect(txt.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(txt.text).toBe(link.svc_url);
    const jsonp = await t.http
      .get(`/url/update/${link.svc_id}.json`)
      .query({ v: '3', key, tool: 'x', callback: 'up' })
      .expect(200);
    expect(jsonp.text).toMatch(
      new RegExp(`^up\\(\\{"svc_url":"${link.svc_url}",.*"updated_at":"[0-9T:Z-]+"\\}\\);$`),
    );
    const xml = await t.http
      .post(`/url/update/${link.svc_id}.xml`)
      .type('form')
      .send({ v: '3', key, tool: 'x' })
      .expect(400);
    expect(xml.body).toEqual({
      error: 400,
      error_message: 'Invalid parameter format: "xml" is not supported; use json or txt',
    });
  });

  it('requires v (3), key and tool', async () => {
    const link = await createLink(t, key);
    const cases: [Record<string, string>, number, string][] = [
      [{ key, tool: 'x' }, 400, 'Missing required parameter: v'],
      [{ v: '2', key, tool: 'x' }, 400, 'Invalid parameter v: must be 3'],
      [{ v: '3', tool: 'x' }, 400, 'Missing required parameter: key'],
      [{ v: '3', key }, 400, 'Missing required parameter: tool'],
      [{ v: '3', key: 'wrong', tool: 'x' }, 403, 'Invalid API key specified'],
    ];
    for (const [params, status, message] of cases) {
      const res = await t.http
        .post(`/url/update/${link.svc_id}.json`)
        .type('form')
        .send(params)
        .expect(status);
      expect(res.body).toEqual({ error: status, error_message: message });
    }
  });
});

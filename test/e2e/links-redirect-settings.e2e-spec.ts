import { TestApp, createTestApp } from '../support/app';
import { createProject, updateProject } from '../factories/projects';
import { form } from '../factories/links';

/** Redirection patterns and UTM parameters: project settings that shape redirect_url. */
describe('redirect_url: redirection patterns and UTM parameters', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const link = (key: string, extra: Record<string, string> = {}) =>
    t.http
      .post('/url.json')
      .type('form')
      .send({ v: '3', key, tool: 'publisher-bar', channel: 'twitter', ...extra });

  it('expands the pattern of the original URL host, with a canonical original_url', async () => {
    const project = await createProject(t, {
      redirection_patterns: {
        'shop.example':
          'https://r.example/go?to=%escaped_original_url%&by=%user_id_username%&c=%campaign%&id=%svc_id%',
      },
    });
    const res = await link(project.api_key, {
      url: 'https://shop.example/p?id=1&utm_source=x#top',
      user_id: '42',
      user_id_username: 'Ann Lee',
      campaign: 'Spring',
      campaign_description: 'Spring sale',
    }).expect(200);
    expect(res.body.original_url).toBe('https://shop.example/p?id=1');
    expect(res.body.redirect_url).toBe(
      `https://r.example/go?to=https%3A%2F%2Fshop.example%2Fp%3Fid%3D1&by=Ann%20Lee&c=spring&id=${encodeURIComponent(res.body.svc_id)}`,
    );
    const other = await link(project.api_key, {
      url: 'https://other.example/a?utm_source=x#f',
    }).expect(200);
    expect(other.body.original_url).toBe('https://other.example/a?utm_source=x#f');
    expect(other.body.redirect_url).toBe('https://other.example/a?utm_source=x#f');
  });

  it('fills %fields% from the stored user identity and campaign when a later link does not repeat them', async () => {
    const project = await createProject(t, {
      redirection_patterns: {
        'b.example': 'https://r.example/?by=%user_id_username%&cn=%campaign_name%&u=%svc_url%',
      },
    });
    await link(project.api_key, {
      url: 'https://c.example/',
      user_id: '7',
      user_id_username: 'Bea',
      campaign: 'Winter Deals',
      campaign_description: 'Winter',
    }).expect(200);
    const res = await link(project.api_key, {
      url: 'https://b.example/x',
      user_id: '7',
      campaign: 'winter_deals',
    }).expect(200);
    expect(res.body.redirect_url).toBe(
      `https://r.example/?by=Bea&cn=Winter%20Deals&u=${encodeURIComponent(res.body.svc_url)}`,
    );
  });

  it('fills every field of the link record, those known once it is stored too, on create, batch and static', async () => {
    const fields = [
      'svc_url',
      'svc_id',
      'domain',
      'path',
      'created_at',
      'original_url',
      'escaped_original_url',
      'channel',
      'service',
      'tool',
      'application',
      'parent',
      'sharer_id',
      'username',
      'service_userid',
      'service_postid',
      'service_postid_reach',
      'service_postid_shared_at',
      'campaign',
      'campaign_name',
      'campaign_description',
      'user_id',
      'user_id_username',
      'user_id_icon_url',
      'user_id_profile_url',
      'tag',
      'notes',
    ];
    const project = (await createProject(t, {
      sharers: ['pat@example.com'],
      redirection_patterns: {
        'all.example': `https://r.example/?${fields.map((f) => `${f}=%${f}%`).join('&')}`,
      },
    })) as unknown as { api_key: string; sharers: { sharer_id: string; username: string }[] };
    const sharer = project.sharers[0];
    const parent = await link(project.api_key, { url: 'https://parent.example/' }).expect(200);
    const params = {
      url: 'https://all.example/p?id=1',
      path: 'every-field',
      parent: parent.body.svc_id,
      sharer_id: sharer.sharer_id,
      service_userid: 'twitter:111',
      service_postid: 'twitter:222',
      service_postid_reach: '1500',
      service_postid_shared_at: '2026-11-02T10:30:00Z',
      campaign: 'Fall Sale',
      campaign_description: 'Autumn',
      user_id: '42',
      user_id_username: 'Pat Q',
      user_id_icon_url: 'https://i.example/pat.png',
      user_id_profile_url: 'https://p.example/pat',
      tag: 'T&1',
      notes: 'a note: 100%',
    };
    const res = await link(project.api_key, params).expect(200);
    const r = res.body as Record<string, string> & { created_at: string };
    expect([r.svc_id, r.path, r.domain, r.username]).toEqual([
      'svc.test_every-field',
      'every-field',
      'svc.test',
      sharer.username,
    ]);
    const e = encodeURIComponent;
    expect(r.redirect_url).toBe(
      'https://r.example/?' +
        [
          `svc_url=${e('http://svc.test/every-field')}`,
          'svc_id=svc.test_every-field',
          'domain=svc.test',
          'path=every-field',
          `created_at=${e(r.created_at)}`,
          'original_url=https://all.example/p?id=1',
          `escaped_original_url=${e('https://all.example/p?id=1')}`,
          'channel=twitter',
          'service=twitter',
          'tool=publisher-bar',
          'application=publisher',
          `parent=${e(parent.body.svc_id)}`,
          `sharer_id=${sharer.sharer_id}`,
          `username=${e(sharer.username)}`,
          'service_userid=twitter%3A111',
          'service_postid=twitter%3A222',
          'service_postid_reach=1500',
          'service_postid_shared_at=2026-11-02T10%3A30%3A00Z',
          'campaign=fall_sale',
          'campaign_name=Fall%20Sale',
          'campaign_description=Autumn',
          'user_id=42',
          'user_id_username=Pat%20Q',
          `user_id_icon_url=${e('https://i.example/pat.png')}`,
          `user_id_profile_url=${e('https://p.example/pat')}`,
          'tag=T%261',
          'notes=a%20note%3A%20100%25',
        ].join('&'),
    );
    // created_at is the stored one: the link's as the API and the database give it.
    expect(r.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const stored = await t.db.query(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at FROM links WHERE svc_id = $1`,
      [r.svc_id],
    );
    expect(stored.rows).toEqual([{ at: r.created_at }]);

    const only = (record: Record<string, string>) => new URL(record.redirect_url).searchParams;
    const batch = await t.http
      .post('/url/batch.json')
      .type('form')
      .send(
        form([
          ['v', '3'],
          ['key', project.api_key],
          ['tool', 'publisher-bar'],
          ['channel', 'email'],
          ['url[]', 'https://all.example/1'],
          ['url[]', 'https://all.example/2'],
        ]),
      )
      .expect(200);
    const fixed = await t.http
      .post('/url/static.json')
      .type('form')
      .send({ v: '3', key: project.api_key, tool: 'publisher-bar', url: 'https://all.example/s' })
      .expect(200);
    for (const record of [
      ...(batch.body.svc_urls as Record<string, string>[]),
      fixed.body as Record<string, string>,
    ]) {
      const q = only(record);
      expect([
        q.get('svc_url'),
        q.get('svc_id'),
        q.get('domain'),
        q.get('path'),
        q.get('created_at'),
      ]).toEqual([record.svc_url, record.svc_id, 'svc.test', record.path, record.created_at]);
    }
  });

  it('removes a pattern with null and appends UTM parameters when switched on', async () => {
    const project = await createProject(t, {
      redirection_patterns: { 'a.example': 'https://r.example/?u=%original_url%' },
    });
    await updateProject(t, project.api_key, {
      redirection_patterns: { 'a.example': null },
      utm_parameters: true,
    });
    const res = await link(project.api_key, {
      url: 'https://a.example/x?k=v',
      campaign: 'fall',
      campaign_description: 'Fall',
    }).expect(200);
    expect(res.body.original_url).toBe('https://a.example/x?k=v');
    expect(res.body.redirect_url).toBe(
      'https://a.example/x?k=v&utm_campaign=fall&utm_medium=svc.test-twitter&utm_source=direct-svc.test&utm_content=publisher-bar',
    );
    const shown = await t.http
      .get(`/projects/${project.api_key}/show`)
      .query({ subscription_key: t.subscriptionKey, application_key: t.applicationKey })
      .expect(200);
    expect(shown.body.response.project.redirection_patterns).toEqual({});
    expect(shown.body.response.project.utm_parameters).toBe(true);
  });

  it('refuses bad patterns and settings, naming them', async () => {
    const post = (json: object) =>
      t.http
        .post('/projects/new')
        .type('form')
        .send({
          subscription_key: t.subscriptionKey,
          application_key: t.applicationKey,
          json: JSON.stringify(json),
        });
    const bad = await post({
      name: 'bad1',
      redirection_patterns: { 'a.example': 'javascript:alert(1)' },
    }).expect(400);
    expect(bad.body.error).toEqual({
      code: 1002,
      message:
        'Invalid parameter json.redirection_patterns.a.example: must be null or a pattern starting with http(s):// or %original_url%, at most 2048 characters',
    });
    const host = await post({
      name: 'bad2',
      redirection_patterns: { 'not a host': 'https://r.example/' },
    }).expect(400);
    expect(host.body.error.message).toBe(
      'Invalid parameter json.redirection_patterns.not a host: the key must be a hostname',
    );
    const utm = await post({ name: 'bad3', utm_parameters: 'maybe' }).expect(400);
    expect(utm.body.error.message).toMatch(/^Invalid parameter json\.utm_parameters: /);
  });
});

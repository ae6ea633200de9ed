import { TestApp, createTestApp } from '../support/app';
import { createProject, updateProject } from '../factories/projects';

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
        'shop.example': 'https://r.example/go?to=%escaped_original_url%&by=%user_id_username%&c=%campaign%&id=%svc_id%',
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
    const other = await link(project.api_key, { url: 'https://other.example/a?utm_source=x#f' }).expect(200);
    expect(other.body.original_url).toBe('https://other.example/a?utm_source=x#f');
    expect(other.body.redirect_url).toBe('https://other.example/a?utm_source=x#f');
  });

  it('fills %fields% from the stored user identity and campaign when a later link does not repeat them', async () => {
    const project = await createProject(t, {
      redirection_patterns: { 'b.example': 'https://r.example/?by=%user_id_username%&cn=%campaign_name%&u=%svc_url%' },
    });
    await link(project.api_key, {
      url: 'https://c.example/',
      user_id: '7',
      user_id_username: 'Bea',
      campaign: 'Winter Deals',
      campaign_description: 'Winter',
    }).expect(200);
    const res = await link(project.api_key, { url: 'https://b.example/x', user_id: '7', campaign: 'winter_deals' }).expect(200);
    expect(res.body.redirect_url).toBe(`https://r.example/?by=Bea&cn=Winter%20Deals&u=${encodeURIComponent(res.body.svc_url)}`);
  });

  it('removes a pattern with null and appends UTM parameters when switched on', async () => {
    const project = await createProject(t, { redirection_patterns: { 'a.example': 'https://r.example/?u=%original_url%' } });
    await updateProject(t, project.api_key, { redirection_patterns: { 'a.example': null }, utm_parameters: true });
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
        .send({ subscription_key: t.subscriptionKey, application_key: t.applicationKey, json: JSON.stringify(json) });
    const bad = await post({ name: 'bad1', redirection_patterns: { 'a.example': 'javascript:alert(1)' } }).expect(400);
    expect(bad.body.error).toEqual({
      code: 1002,
      message:
        'Invalid parameter json.redirection_patterns.a.example: must be null or a pattern starting with http(s):// or %original_url%, at most 2048 characters',
    });
    const host = await post({ name: 'bad2', redirection_patterns: { 'not a host': 'https://r.example/' } }).expect(400);
    expect(host.body.error.message).toBe('Invalid parameter json.redirection_patterns.not a host: the key must be a hostname');
    const utm = await post({ name: 'bad3', utm_parameters: 'maybe' }).expect(400);
    expect(utm.body.error.message).toMatch(/^Invalid parameter json\.utm_parameters: /);
  });
});

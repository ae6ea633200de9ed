import { TestApp, createTestApp } from '../support/app';
import { connectDomain, createProject, updateProject } from '../factories/projects';
import { BROWSER, GOOGLEBOT, clickCounts, linkRow, storedClicks } from '../support/clicks';

describe.each([
  ['BullMQ on Redis', true],
  ['in-process jobs', false],
])('redirects and clicks (%s)', (_label, redis) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ redis });
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const create = async (extra: Record<string, string> = {}) => {
    const res = await t.http
      .post('/url.json')
      .type('form')
      .send({
        v: '3',
        key,
        tool: 'pub-bar',
        channel: 'twitter',
        url: 'https://example.com/landing?a=1',
        ...extra,
      })
      .expect(200);
    return res.body as { svc_id: string; path: string; domain: string };
  };
  const visit = (host: string, path: string, ua = BROWSER) =>
    t.http.get(`/${path}`).set('Host', host).set('User-Agent', ua);
  const counts = async (svcId: string) => {
    const { clicks, bots } = (await clickCounts(t, [svcId]))[svcId];
    return { clicks, bots };
  };

  it('answers a known path with a 302 to the redirect URL, uncacheable, and counts the click once', async () => {
    const link = await create();
    const res = await visit('svc.test', link.path).expect(302);
    expect(res.headers.location).toBe('https://example.com/landing?a=1');
    expect(res.headers['cache-control']).toBe('private, max-age=0');
    await t.settle();
    expect(await counts(link.svc_id)).toEqual({ clicks: 1, bots: 0 });
    const raw = (await storedClicks(t)).map(({ referrer, user_agent, ip, is_bot }) => ({
      referrer,
      user_agent,
      ip,
      is_bot,
    }));
    expect(raw).toContainEqual({
      referrer: null,
      user_agent: BROWSER,
      ip: expect.stringMatching(/\.0$|::$/),
      is_bot: false,
    });
  });

  it('redirects to addresses with spaces and non-ASCII characters percent-encoded, the host in Punycode', async () => {
    const cases: [string, string][] = [
      ['https://example.com/日本?q=é', 'https://example.com/%E6%97%A5%E6%9C%AC?q=%C3%A9'],
      ['https://example.com/ü', 'https://example.com/%C3%BC'],
      ['https://example.com/A b/?q=1', 'https://example.com/A%20b/?q=1'],
      ['http://例え.jp/パス', 'http://xn--r8jz45g.jp/%E3%83%91%E3%82%B9'],
    ];
    for (const [url, location] of cases) {
      const link = await create({ url });
      const res = await visit('svc.test', link.path).expect(302);
      expect(res.headers.location).toBe(location);
    }
  });

  it('reads the path percent-decoded and without surrounding slashes, the Host and the headers in any case', async () => {
    const link = await create({ path: `spring-sale-${redis ? 'r' : 'p'}` });
    await t.http
      .get(`/${link.path.replace(/-/g, '%2D')}/`)
      .set('HOST', 'SVC.test')
      .set('user-agent', BROWSER)
      .set('REFERER', 'https://r.example/')
      .expect(302);
    await t.http
      .get(`//${link.path.replace('-', '%2d')}`)
      .set('Host', 'svc.test')
      .set('User-Agent', BROWSER)
      .expect(302);
    // A malformed escape is no link path: the domain's not-found answer, and no click.
    await t.http
      .get(`/${link.path}%E0%A4%A`)
      .set('Host', 'svc.test')
      .set('User-Agent', BROWSER)
      .expect(404);
    await t.settle();
    expect(await counts(link.svc_id)).toEqual({ clicks: 2, bots: 0 });
    const raw = (await storedClicks(t, (await linkRow(t, link.svc_id)).linkId)).map(
      ({ referrer, user_agent }) => ({ referrer, user_agent }),
    );
    expect(raw).toEqual([
      { referrer: 'https://r.example/', user_agent: BROWSER },
      { referrer: null, user_agent: BROWSER },
    ]);
  });

  it('counts humans, stores bots flagged and leaves them out of clicks; HEAD is not counted', async () => {
    const link = await create();
    for (let i = 0; i < 3; i++) await visit('svc.test', link.path).expect(302);
    await visit('svc.test', link.path, GOOGLEBOT).expect(302);
    await t.http.head(`/${link.path}`).set('Host', 'svc.test').expect(302);
    await t.settle();
    expect(await counts(link.svc_id)).toEqual({ clicks: 3, bots: 1 });
  });

  it('adds svc=<svc_id> when conversions are enabled for the landing host, keeping the query', async () => {
    const project = await createProject(t, {
      conversions: { enabled: true, domains: ['example.com'] },
    });
    const res = await t.http
      .get('/url.json')
      .query({
        v: '3',
        key: project.api_key,
        tool: 't',
        channel: 'email',
        url: 'https://example.com/p?x=1#top',
      })
      .expect(200);
    const other = await t.http
      .get('/url.json')
      .query({
        v: '3',
        key: project.api_key,
        tool: 't',
        channel: 'email',
        url: 'https://elsewhere.example/p',
      })
      .expect(200);
    const hit = await visit('svc.test', res.body.path).expect(302);
    expect(hit.headers.location).toBe(
      `https://example.com/p?x=1&svc=${encodeURIComponent(res.body.svc_id)}#top`,
    );
    const miss = await visit('svc.test', other.body.path).expect(302);
    expect(miss.headers.location).toBe('https://elsewhere.example/p');
    await updateProject(t, project.api_key, { conversions: { domains: 'all' } });
    const all = await visit('svc.test', other.body.path).expect(302);
    expect(all.headers.location).toBe(
      `https://elsewhere.example/p?svc=${encodeURIComponent(other.body.svc_id)}`,
    );
  });

  it('answers an unknown path on the default domain with a small 404 page; API routes win there', async () => {
    const res = await visit('svc.test', 'nope-nope').expect(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('Link not found');
    await t.http.get('/health').set('Host', 'svc.test').expect(200, { status: 'ok' });
  });

  it('serves connected domains: links, root_redirect, not_found_redirect and the domain_segment form', async () => {
    const hostname = redis ? 'go.redis.test' : 'go.local.test';
    const project = await createProject(t);
    await connectDomain(t, hostname, [project.api_key]);
    await connectDomain(t, `${hostname}_news`, [project.api_key]);
    const plain = await t.http
      .get('/url.json')
      .query({
        v: '3',
        key: project.api_key,
        tool: 't',
        channel: 'email',
        url: 'https://example.com/1',
        domain: hostname,
      })
      .expect(200);
    const segment = await t.http
      .get('/url.json')
      .query({
        v: '3',
        key: project.api_key,
        tool: 't',
        channel: 'email',
        url: 'https://example.com/2',
        domain: `${hostname}_news`,
      })
      .expect(200);
    expect(segment.body.svc_url).toBe(`http://${hostname}/news/${segment.body.path}`);
    expect((await visit(hostname, plain.body.path).expect(302)).headers.location).toBe(
      'https://example.com/1',
    );
    expect((await visit(hostname, `news/${segment.body.path}`).expect(302)).headers.location).toBe(
      'https://example.com/2',
    );
    expect((await visit(hostname, '').expect(302)).headers.location).toBe(
      `https://${hostname}.example/`,
    );
    expect((await visit(hostname, 'missing').expect(302)).headers.location).toBe(
      `https://${hostname}.example/404`,
    );
    expect((await visit(hostname, 'news').expect(302)).headers.location).toBe(
      `https://${hostname}-news.example/`,
    );
    expect((await visit(hostname, 'news/missing').expect(302)).headers.location).toBe(
      `https://${hostname}-news.example/404`,
    );
    await visit('unknown-host.test', 'abc').expect(404);
    await t.settle();
    expect(await counts(plain.body.svc_id)).toEqual({ clicks: 1, bots: 0 });
  });

  it("answers a path named after an object's property (constructor, __proto__…) on a connected domain as any unknown path, not 503", async () => {
    const hostname = redis ? 'proto.redis.test' : 'proto.local.test';
    const project = await createProject(t);
    await connectDomain(t, hostname, [project.api_key]);
    await connectDomain(t, `${hostname}_news`, [project.api_key]);
    for (const path of ['constructor', '__proto__', 'toString', 'hasOwnProperty/x']) {
      const res = await visit(hostname, path);
      expect([res.status, res.headers.location]).toEqual([302, `https://${hostname}.example/404`]);
    }
    expect((await visit(hostname, 'news/x').expect(302)).headers.location).toBe(
      `https://${hostname}-news.example/404`,
    );
  });

  it('stops redirecting links of a destroyed project at once', async () => {
    const project = await createProject(t);
    const res = await t.http
      .get('/url.json')
      .query({
        v: '3',
        key: project.api_key,
        tool: 't',
        channel: 'email',
        url: 'https://example.com/gone',
      })
      .expect(200);
    await visit('svc.test', res.body.path).expect(302);
    await t.http
      .post(`/projects/${project.api_key}/destroy`)
      .type('form')
      .send({ subscription_key: t.subscriptionKey, application_key: t.applicationKey })
      .expect(200);
    await visit('svc.test', res.body.path).expect(404);
  });

  it('exposes Prometheus metrics: redirect latency, cache layers, buffer, queue, ingest lag', async () => {
    const link = await create();
    await visit('svc.test', link.path).expect(302);
    await visit('svc.test', link.path).expect(302);
    await t.settle();
    const res = await t.http.get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const value = (name: string) =>
      Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(res.text)?.[1]);
    expect(value('svc_redirect_duration_seconds_count{outcome="redirect"}')).toBeGreaterThanOrEqual(
      2,
    );
    expect(value('svc_link_cache_lookups_total{layer="memory"}')).toBeGreaterThanOrEqual(1);
    expect(value('svc_link_cache_lookups_total{layer="database"}')).toBeGreaterThanOrEqual(1);
    expect(value('svc_click_buffer_size')).toBe(0);
    expect(value('svc_click_ingest_lag_seconds')).toBeGreaterThanOrEqual(0);
    if (redis) {
      expect(value('svc_click_queue_depth')).toBe(0);
      expect(value('svc_click_queue_age_seconds')).toBe(0);
    } else {
      expect(res.text).not.toContain('svc_click_queue_depth');
    }
  });

  it('a custom path visited before it existed redirects once it is created', async () => {
    await visit('svc.test', `later-${redis}`).expect(404);
    await create({ path: `later-${redis}` });
    const res = await visit('svc.test', `later-${redis}`).expect(302);
    expect(res.headers.location).toBe('https://example.com/landing?a=1');
  });
});

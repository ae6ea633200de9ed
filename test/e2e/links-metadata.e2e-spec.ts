import { TestApp, createTestApp } from '../support/app';
import type { LinkRecord } from '../../src/links/link-record';
import { connectDomain, createProject } from '../factories/projects';
import { createLink } from '../factories/links';

describe('link metadata on url.{format}', () => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  let annId: string;
  beforeAll(async () => {
    t = await createTestApp();
    const project = (await createProject(t, { sharers: ['ann@example.com'] })) as unknown as {
      api_key: string;
      sharers: { sharer_id: string; username: string }[];
    };
    key = project.api_key;
    annId = project.sharers[0].sharer_id;
    otherKey = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const base = (k = key) => ({
    v: '3',
    key: k,
    tool: 'publisher-sharebar',
    channel: 'twitter',
    url: 'https://example.com/a',
  });
  const create = (params: Record<string, string | undefined>, k = key) =>
    t.http
      .post('/url.json')
      .type('form')
      .send(
        Object.fromEntries(
          Object.entries({ ...base(k), ...params }).filter(([, v]) => v !== undefined),
        ),
      );

  describe('campaign', () => {
    it('stubifies the value and keeps the submitted value as its name', async () => {
      const res = await create({
        campaign: 'Summer Sale 2026!',
        campaign_description: 'The summer sale',
      }).expect(200);
      expect(res.body.campaign).toBe('summer_sale_2026');
      expect(res.body.campaign_metadata).toEqual({
        description: 'The summer sale',
        name: 'Summer Sale 2026!',
      });
    });

    it('needs campaign_description when the campaign is first created', async () => {
      const res = await create({ campaign: 'brand_new' }).expect(400);
      expect(res.body).toEqual({
        error: 400,
        error_message:
          'Invalid parameter campaign_description: must be given when campaign "brand_new" is created',
      });
    });

    it('keeps name and description per project once created; another project must create its own', async () => {
      await create({
        campaign: 'launch',
        campaign_description: 'Launch day',
        campaign_name: 'The Launch',
      }).expect(200);
      const again = await create({ campaign: 'launch' }).expect(200);
      expect(again.body.campaign).toBe('launch');
      expect(again.body.campaign_metadata).toEqual({
        description: 'Launch day',
        name: 'The Launch',
      });
      const other = await create({ campaign: 'launch' }, otherKey).expect(400);
      expect(other.body).toEqual({
        error: 400,
        error_message:
          'Invalid parameter campaign_description: must be given when campaign "launch" is created',
      });
    });

    it('names a campaign given as a stub by its value', async () => {
      const res = await create({ campaign: 'plain_stub', campaign_description: 'd' }).expect(200);
      expect(res.body.campaign_metadata).toEqual({ description: 'd', name: 'plain_stub' });
    });

    it('refuses campaign_description and campaign_name without a campaign, and a campaign with no letter or digit', async () => {
      expect((await create({ campaign_description: 'x' }).expect(400)).body).toEqual({
        error: 400,
        error_message: 'Invalid parameter campaign_description: needs a valid campaign',
      });
      expect((await create({ campaign_name: 'x' }).expect(400)).body).toEqual({
        error: 400,
        error_message: 'Invalid parameter campaign_name: needs a valid campaign',
      });
      expect(
        (await create({ campaign: '!!!', campaign_description: 'd' }).expect(400)).body,
      ).toEqual({
        error: 400,
        error_message: 'Invalid parameter campaign: must contain at least one letter or digit',
      });
    });
  });

  describe('notes and tag', () => {
    it('accepts 256 characters of notes and refuses 257', async () => {
      const ok = await create({ notes: 'n'.repeat(256) }).expect(200);
      expect(ok.body.notes).toBe('n'.repeat(256));
      const tooLong = await create({ notes: 'n'.repeat(257) }).expect(400);
      expect(tooLong.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter notes: must be at most 256 characters',
      });
    });

    it('keeps tag case-sensitive', async () => {
      const upper = await create({ tag: 'MiXeD-Tag' }).expect(200);
      const lower = await create({ tag: 'mixed-tag' }).expect(200);
      expect([upper.body.tag, lower.body.tag]).toEqual(['MiXeD-Tag', 'mixed-tag']);
    });
  });

  describe('parent', () => {
    let parent: LinkRecord;
    let foreign: LinkRecord;
    beforeAll(async () => {
      parent = await createLink(t, key);
      foreign = await createLink(t, otherKey);
    });

    it('takes an explicit parent of the project', async () => {
      const res = await create({ parent: parent.svc_id }).expect(200);
      expect(res.body.parent).toBe(parent.svc_id);
    });

    it('refuses an unknown parent and another project’s link as parent', async () => {
      for (const id of ['svc.test_nothere', foreign.svc_id]) {
        const res = await create({ parent: id }).expect(400);
        expect(res.body).toEqual({
          error: 400,
          error_message: `Invalid parameter parent: no link ${id} in this project`,
        });
      }
    });

    it('makes the link a url points to the parent', async () => {
      const res = await create({ url: parent.svc_url }).expect(200);
      expect(res.body.parent).toBe(parent.svc_id);
      expect(res.body.original_url).toBe(parent.svc_url);
    });

    it('makes the link named by svc=<svc_id> in the url the parent, for the same project only', async () => {
      const url = `https://shop.example/item?id=4&svc=${parent.svc_id}`;
      const res = await create({ url }).expect(200);
      expect(res.body.parent).toBe(parent.svc_id);
      expect(res.body.original_url).toBe(url);
      const other = await create({ url: `https://shop.example/item?svc=${foreign.svc_id}` }).expect(
        200,
      );
      expect(other.body.parent).toBeNull();
      const otherUrl = await create({ url: foreign.svc_url }).expect(200);
      expect(otherUrl.body.parent).toBeNull();
    });

    it('prefers an explicit parent to the implicit one', async () => {
      const second = await createLink(t, key);
      const res = await create({ url: parent.svc_url, parent: second.svc_id }).expect(200);
      expect(res.body.parent).toBe(second.svc_id);
    });
  });

  describe('service_userid', () => {
    it('takes service:user_id matching the channel’s service', async () => {
      const res = await create({
        channel: 'facebook-post',
        service_userid: 'facebook:12345',
      }).expect(200);
      expect([res.body.channel, res.body.service, res.body.service_userid]).toEqual([
        'facebook-post',
        'facebook',
        'facebook:12345',
      ]);
    });

    it('refuses a service other than the channel’s (400)', async () => {
      const res = await create({ channel: 'twitter', service_userid: 'facebook:12345' }).expect(
        400,
      );
      expect(res.body).toEqual({
        error: 400,
        error_message:
          'Invalid parameter service_userid: service "facebook" does not match the channel\'s service "twitter"',
      });
    });

    it('prefixes a bare numeric id when the channel is known, refuses it otherwise', async () => {
      const res = await create({ channel: 'twitter', service_userid: '98765' }).expect(200);
      expect(res.body.service_userid).toBe('twitter:98765');
      for (const [channel, value] of [
        ['my-widget', '98765'],
        ['twitter', 'alice'],
        ['twitter', 'twitter:'],
      ]) {
        const bad = await create({ channel, service_userid: value }).expect(400);
        expect(bad.body).toEqual({
          error: 400,
          error_message: 'Invalid parameter service_userid: must be service:id',
        });
      }
    });
  });

  describe('user_id', () => {
    it('records the identity with its metadata and keeps it per project', async () => {
      const first = await create({
        user_id: 'User42',
        user_id_username: 'fortytwo',
        user_id_icon_url: 'https://cdn.example/42.png',
        user_id_profile_url: 'https://social.example/fortytwo',
      }).expect(200);
      const metadata = {
        icon_url: 'https://cdn.example/42.png',
        username: 'fortytwo',
        profile_url: 'https://social.example/fortytwo',
      };
      expect(first.body.user_id).toBe('User42');
      expect(first.body.user_id_metadata).toEqual(metadata);
      const again = await create({ user_id: 'User42' }).expect(200);
      expect(again.body.user_id_metadata).toEqual(metadata);
      const renamed = await create({ user_id: 'User42', user_id_username: 'the42' }).expect(200);
      expect(renamed.body.user_id_metadata).toEqual({ ...metadata, username: 'the42' });
      const caseDiffers = await create({ user_id: 'user42' }).expect(200);
      expect(caseDiffers.body.user_id_metadata).toEqual({
        icon_url: null,
        username: null,
        profile_url: null,
      });
      const otherProject = await create({ user_id: 'User42' }, otherKey).expect(200);
      expect(otherProject.body.user_id_metadata).toEqual({
        icon_url: null,
        username: null,
        profile_url: null,
      });
    });

    it('refuses user_id_* without user_id (400)', async () => {
      for (const name of ['user_id_username', 'user_id_icon_url', 'user_id_profile_url']) {
        const value = name === 'user_id_username' ? 'someone' : 'https://cdn.example/x';
        const res = await create({ [name]: value }).expect(400);
        expect(res.body).toEqual({
          error: 400,
          error_message: `Invalid parameter ${name}: needs a valid user_id`,
        });
      }
      const badIcon = await create({ user_id: '7', user_id_icon_url: 'not a url' }).expect(400);
      expect(badIcon.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter user_id_icon_url: must be an absolute http(s) URL',
      });
    });
  });

  describe('sharer_id', () => {
    it('takes a project member’s sharer_id and returns the username', async () => {
      const res = await create({ sharer_id: annId }).expect(200);
      expect([res.body.sharer_id, res.body.username]).toEqual([annId, 'ann']);
    });

    it('refuses a sharer_id that is not a member of the project', async () => {
      const stranger = '00000000-0000-4000-8000-000000000000';
      const res = await create({ sharer_id: stranger }).expect(400);
      expect(res.body).toEqual({
        error: 400,
        error_message: `Invalid parameter sharer_id: ${stranger} is not a user of this project`,
      });
      const elsewhere = await create({ sharer_id: annId }, otherKey).expect(400);
      expect(elsewhere.body).toEqual({
        error: 400,
        error_message: `Invalid parameter sharer_id: ${annId} is not a user of this project`,
      });
    });
  });

  describe('tool and application', () => {
    it('returns the tool key and derives the application from it', async () => {
      const a = await create({ tool: 'publisher-sharebar' }).expect(200);
      const b = await create({ tool: 'widget' }).expect(200);
      const c = await create({ tool: 'Mobile App-Share Button' }).expect(200);
      expect([a.body.tool, a.body.application]).toEqual(['publisher-sharebar', 'publisher']);
      expect([b.body.tool, b.body.application]).toEqual(['widget', 'widget']);
      expect([c.body.tool, c.body.application]).toEqual(['Mobile App-Share Button', 'mobile_app']);
    });
  });

  describe('url', () => {
    it('accepts absolute http and https URLs only', async () => {
      expect((await create({ url: 'http://example.com/' }).expect(200)).body.original_url).toBe(
        'http://example.com/',
      );
      for (const url of [
        'ftp://example.com/file',
        '/relative/path',
        'example.com/page',
        'mailto:a@example.com',
      ]) {
        const res = await create({ url }).expect(400);
        expect(res.body).toEqual({
          error: 400,
          error_message: 'Invalid parameter url: must be an absolute http(s) URL',
        });
      }
    });
  });

  describe('domain and path', () => {
    let custom: string;
    beforeAll(async () => {
      custom = (await createProject(t)).api_key;
      await connectDomain(t, 'go.brand.example', [custom]);
      await connectDomain(t, 'brand.example_deals', [custom]);
      await connectDomain(t, 'not-ours.example', []);
    });

    it('creates random base62 paths on the default domain, all different', async () => {
      const paths = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const res = await create({}, custom).expect(200);
        expect(res.body.path).toMatch(/^[0-9A-Za-z]{7}$/);
        expect(res.body.domain).toBe('svc.test');
        paths.add(res.body.path as string);
      }
      expect(paths.size).toBe(5);
    });

    it('uses an authorised custom domain', async () => {
      const res = await create({ domain: 'go.brand.example' }, custom).expect(200);
      expect(res.body.domain).toBe('go.brand.example');
      expect(res.body.svc_url).toBe(`http://go.brand.example/${res.body.path}`);
      expect(res.body.svc_id).toBe(`go.brand.example_${res.body.path}`);
    });

    it('builds svc_url and svc_id for a domain with a path segment', async () => {
      const res = await create(
        { domain: 'brand.example_deals', path: 'spring/shoes' },
        custom,
      ).expect(200);
      expect(res.body).toMatchObject({
        domain: 'brand.example_deals',
        path: 'spring/shoes',
        svc_url: 'http://brand.example/deals/spring/shoes',
        svc_id: 'brand.example_deals_spring_shoes',
      });
    });

    it('takes a link on a domain with a path segment as implicit parent', async () => {
      const parent = await create({ domain: 'brand.example_deals' }, custom).expect(200);
      const child = await create({ url: parent.body.svc_url }, custom).expect(200);
      expect(child.body.parent).toBe(parent.body.svc_id);
    });

    it('refuses a domain the project may not use (403)', async () => {
      for (const domain of ['not-ours.example', 'unknown.example']) {
        const res = await create({ domain }, custom).expect(403);
        expect(res.body).toEqual({
          error: 403,
          error_message: `The project has no access to domain ${domain}`,
        });
      }
      const otherProject = await create({ domain: 'go.brand.example' }).expect(403);
      expect(otherProject.body).toEqual({
        error: 403,
        error_message: 'The project has no access to domain go.brand.example',
      });
    });

    it('takes a custom path, 409 when it is taken on that domain, free on another domain', async () => {
      const first = await create({ path: 'my-page' }, custom).expect(200);
      expect(first.body).toMatchObject({
        path: 'my-page',
        svc_id: 'svc.test_my-page',
        svc_url: 'http://svc.test/my-page',
      });
      const taken = await create({ path: 'my-page' }).expect(409);
      expect(taken.body).toEqual({
        error: 409,
        error_message: 'Path my-page is already taken on svc.test',
      });
      const elsewhere = await create(
        { path: 'my-page', domain: 'go.brand.example' },
        custom,
      ).expect(200);
      expect(elsewhere.body.svc_id).toBe('go.brand.example_my-page');
    });

    it('replaces every / of the path by _ in svc_id', async () => {
      const res = await create({ path: 'a/b/c' }, custom).expect(200);
      expect([res.body.svc_id, res.body.svc_url]).toEqual([
        'svc.test_a_b_c',
        'http://svc.test/a/b/c',
      ]);
    });

    it('refuses a path the API answers on the default domain; a connected domain takes it', async () => {
      for (const [path, segment] of [
        ['stats', 'stats'],
        ['url', 'url'],
        ['health', 'health'],
        ['url.json', 'url.json'],
        ['projects/mine', 'projects'],
      ]) {
        const res = await create({ path }, custom).expect(400);
        expect(res.body).toEqual({
          error: 400,
          error_message: `Invalid parameter path: ${segment} belongs to the API on svc.test`,
        });
      }
      const near = await create({ path: 'statsx' }, custom).expect(200);
      expect(near.body.svc_url).toBe('http://svc.test/statsx');
      const elsewhere = await create({ path: 'stats', domain: 'go.brand.example' }, custom).expect(
        200,
      );
      expect(elsewhere.body.svc_url).toBe('http://go.brand.example/stats');
    });

    it('refuses every first segment of the API routes and mounts (read from the router), not others', async () => {
      const document = (await t.http.get('/docs-json').expect(200)).body as {
        paths: Record<string, unknown>;
      };
      const routes = Object.keys(document.paths).map((route) =>
        route.split('/')[1].replace(/\.?\{.*$/, ''),
      );
      const segments = [
        ...new Set([...routes, 'docs', 'docs-json', 'console', 'favicon.ico', 'robots.txt']),
      ];
      expect(segments).toEqual(
        expect.arrayContaining([
          'url',
          'stats',
          'conversions',
          'projects',
          'domains',
          'health',
          'metrics',
          'svc.js',
        ]),
      );
      for (const segment of segments) {
        const res = await create({ path: `${segment}/x` }, custom).expect(400);
        expect(res.body.error_message).toBe(
          `Invalid parameter path: ${segment} belongs to the API on svc.test`,
        );
      }
      await create({ path: 'docsy/x' }, custom).expect(200);
    });

    it('refuses a path that is not URL-safe', async () => {
      const res = await create({ path: 'has space' }, custom).expect(400);
      expect(res.body).toEqual({
        error: 400,
        error_message:
          'Invalid parameter path: must be URL-safe segments (A-Z a-z 0-9 _ . ~ -) separated by /, at most 200 characters',
      });
    });
  });
});

describe('svc_url with PUBLIC_SCHEME=https', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PUBLIC_SCHEME: 'https' } });
  });
  afterAll(() => t.close());

  it('builds svc_url with the public scheme', async () => {
    const key = (await createProject(t)).api_key;
    const link = await createLink(t, key);
    expect(link.svc_url).toBe(`https://svc.test/${link.path}`);
  });
});

import { TestApp, createTestApp } from '../support/app';
import { createLink, form } from '../factories/links';
import { createProject } from '../factories/projects';

const TOO_DEEP = {
  error: 400,
  error_message:
    'Invalid parameter parent: the parent is 255 generations below its root, the most a cascade holds',
};

/**
 * A link more than 255 generations below its root is refused, 400 naming `parent` (docs/api.md,
 * "Share chains"). On create, batch and static the chain trigger refuses it in the INSERT, and the
 * link services answer its refusal: every way of making a link answers the same, and makes none.
 */
describe('share chains: a parent as deep as a cascade goes', () => {
  let t: TestApp;
  let key: string;
  let parent: { svcId: string; svcUrl: string };
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t)).api_key;
    const link = await createLink(t, key);
    parent = { svcId: link.svc_id, svcUrl: link.svc_url };
    // As a cascade 255 generations long leaves its deepest link.
    await t.db.query(`UPDATE links SET depth = 255 WHERE svc_id = $1`, [parent.svcId]);
  });
  afterAll(() => t.close());

  const linkCount = async () =>
    (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM links')).rows[0].n;
  const common = (): [string, string][] => [
    ['v', '3'],
    ['key', key],
    ['tool', 'publisher-sharebar'],
    ['channel', 'twitter'],
  ];

  it.each([
    [
      'url.json with parent',
      '/url.json',
      () => [
        ['url', 'https://example.com/a'],
        ['parent', parent.svcId],
      ],
    ],
    ['url.json with the parent in url', '/url.json', () => [['url', parent.svcUrl]]],
    [
      'url/batch.json',
      '/url/batch.json',
      () => [
        ['url[]', 'https://example.com/b1'],
        ['url[]', 'https://example.com/b2'],
        ['parent', parent.svcId],
      ],
    ],
    [
      'url/static.json',
      '/url/static.json',
      () => [
        ['url', 'https://example.com/s'],
        ['parent', parent.svcId],
      ],
    ],
  ] as [string, string, () => [string, string][]][])(
    '%s is refused and makes no link',
    async (_name, path, params) => {
      const before = await linkCount();
      const res = await t.http
        .post(path)
        .type('form')
        .send(form([...common(), ...params()]));
      expect([res.status, res.body]).toEqual([400, TOO_DEEP]);
      expect(await linkCount()).toBe(before);
    },
  );
});

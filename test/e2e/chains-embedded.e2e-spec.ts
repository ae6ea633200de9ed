import 'reflect-metadata';
import { BROWSER } from '../support/clicks';
import { eventually } from '../support/eventually';
import { EmbeddedApp, startEmbeddedApp } from '../support/embedded-app';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Share chains on the embedded stores (PGlite: the chain trigger, its bigint[] and its refusals;
 * chDB: link_chains) with in-process jobs: clicks through the redirect path land in the cascade.
 */
describe('embedded (PGlite, chDB, in-process jobs): share chains', () => {
  let embedded: EmbeddedApp;
  let http: EmbeddedApp['http'];
  let key: string;

  beforeAll(async () => {
    embedded = await startEmbeddedApp('embedded_chains');
    ({ http, key } = embedded);
  }, 60_000);

  afterAll(() => embedded?.close());

  const create = async (params: Record<string, string>) => {
    const res = await http
      .post('/url.json')
      .type('form')
      .send({ v: '3', key, tool: 't', channel: 'email', url: 'https://example.com/p', ...params })
      .expect(200);
    return res.body as { svc_id: string; svc_url: string };
  };
  const chainOf = async (svcId: string) =>
    (await http.get(`/stats/${svcId}/chain.json`).query({ v: '3', key }).expect(200)).body as Body;

  it('keeps chains, counts redirected clicks down the cascade and refuses a cycle', async () => {
    const a = await create({});
    const b = await create({ parent: a.svc_id });
    const c = await create({ parent: b.svc_id, url: 'https://example.com/c' });
    for (let i = 0; i < 2; i++)
      await http
        .get(`/${new URL(c.svc_url).pathname.slice(1)}`)
        .set('Host', 'svc.test')
        .set('User-Agent', BROWSER)
        .expect(302);
    let cascade: Body = {};
    await eventually('the clicks in the cascade', async () => {
      cascade = await chainOf(a.svc_id);
      return cascade.downstream.clicks === 2;
    });
    expect(cascade).toMatchObject({
      root: a.svc_id,
      depth: 0,
      own: { clicks: 0 },
      downstream: { shares: 2, sharers: 2, clicks: 2, generations: 2 },
      generations: [
        { generation: 1, shares: 1, clicks: 0 },
        { generation: 2, shares: 1, clicks: 2 },
      ],
    });
    expect((await chainOf(c.svc_id)).depth).toBe(2);
    const cycle = await http
      .post(`/url/update/${a.svc_id}.json`)
      .type('form')
      .send({ v: '3', key, tool: 't', parent: c.svc_id })
      .expect(400);
    expect((cycle.body as Body).error_message).toContain('Invalid parameter parent');
    expect((await chainOf(a.svc_id)).depth).toBe(0);
  }, 60_000);
});

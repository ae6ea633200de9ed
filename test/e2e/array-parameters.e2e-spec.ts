import { TestApp, createTestApp } from '../support/app';
import type { LinkRecord } from '../../src/links/link-record';
import { createProject } from '../factories/projects';
import { form } from '../factories/links';

/** `name[]=value` arrays read the same on GET as on POST, however many values (up to each endpoint's limit). */
describe('array parameters on GET and POST', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ redis: false });
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const common = (): [string, string][] => [
    ['v', '3'],
    ['key', key],
    ['tool', 'publisher-sharebar'],
    ['channel', 'twitter'],
  ];
  const urls = Array.from({ length: 25 }, (_, i) => `https://example.com/${i}`);
  const urlPairs = (list: string[]) => list.map((u): [string, string] => ['url[]', u]);

  it('batch: 25 url[] values on GET make 25 links, in order, as on POST', async () => {
    const get = await t.http
      .get(`/url/batch.json?${form([...common(), ...urlPairs(urls)])}`)
      .expect(200);
    expect((get.body.svc_urls as LinkRecord[]).map((r) => r.original_url)).toEqual(urls);
    const post = await t.http
      .post('/url/batch.json')
      .type('form')
      .send(form([...common(), ...urlPairs(urls)]))
      .expect(200);
    expect((post.body.svc_urls as LinkRecord[]).map((r) => r.original_url)).toEqual(urls);
  });

  it('batch: over the limit of 1,000 values the 400 names it', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => `https://example.com/${i}`);
    const res = await t.http
      .post('/url/batch.json')
      .type('form')
      .send(form([...common(), ...urlPairs(many)]))
      .expect(400);
    expect(res.body).toEqual({
      error: 400,
      error_message: 'Invalid parameter url: at most 1000 values per batch',
    });
  });

  it('tag_2[]: 25 values on GET are all kept on the link', async () => {
    const tags = Array.from({ length: 25 }, (_, i) => `t${i}`);
    const res = await t.http
      .get(
        `/url.json?${form([...common(), ['url', 'https://example.com/tags'], ...tags.map((v): [string, string] => ['tag_2[]', v])])}`,
      )
      .expect(200);
    const row = (await t.db.query('SELECT tag_2 FROM links WHERE svc_id = $1', [res.body.svc_id]))
      .rows[0] as { tag_2: string[] };
    expect(row.tag_2).toEqual(tags);
  });

  it('stats batch: 25 svc_id[] values on GET answer 25 links, in order', async () => {
    const made = await t.http
      .post('/url/batch.json')
      .type('form')
      .send(form([...common(), ...urlPairs(urls)]))
      .expect(200);
    const ids = (made.body.svc_urls as LinkRecord[]).map((r) => r.svc_id).reverse();
    const res = await t.http
      .get(
        `/stats/svc_ids/batch.json?${form([['v', '3'], ['key', key], ...ids.map((id): [string, string] => ['svc_id[]', id])])}`,
      )
      .expect(200);
    expect(res.body).toEqual({
      svc_ids: ids.map((svc_id) => ({ svc_id, clicks: 0, last_clicked_at: null })),
    });
  });

  it('totals: 25 key[] values on GET are one array of keys', async () => {
    const res = await t.http
      .get(
        `/stats/totals.json?${form([['v', '3'], ...Array.from({ length: 25 }, (): [string, string] => ['key[]', key]), ['group_by', 'project']])}`,
      )
      .expect(200);
    expect(res.body.total_results).toBe(1);
  });
});

import { TestApp, createTestApp } from '../support/app';
import type { LinkRecord } from '../../src/links/link-record';
import { createProject } from '../factories/projects';
import { LINK_FIELDS, createLink, form } from '../factories/links';

/** Link controls on the link endpoints (docs/api.md, "Link controls"): set, shown, changed, refused. */
describe('link controls: create, batch, static, update', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t)).api_key;
  });
  afterAll(() => t.close());

  const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
  const update = (id: string, params: Record<string, string> = {}) =>
    t.http
      .post(`/url/update/${id}.json`)
      .type('form')
      .send({ v: '3', key, tool: 'publisher-updater', ...params });
  const create = (params: Record<string, string>) =>
    t.http
      .post('/url.json')
      .type('form')
      .send({
        v: '3',
        key,
        tool: 'publisher-sharebar',
        channel: 'twitter',
        url: 'https://example.com/page',
        ...params,
      });
  const passwordHash = async (svcId: string) =>
    (
      await t.db.query<{ password_hash: string | null }>(
        'SELECT password_hash FROM links WHERE svc_id = $1',
        [svcId],
      )
    ).rows[0].password_hash;

  it('create takes every control; the record shows each, the password only as password_protected', async () => {
    const expires = inAnHour();
    const res = await create({
      expires_at: String(expires),
      max_clicks: '5',
      expired_url: 'https://example.com/over',
      disabled: 'true',
      ios_url: 'https://apps.apple.com/app/id1',
      android_url: 'https://play.google.com/store/apps/details?id=x',
      geo: JSON.stringify({ us: 'https://example.com/us', DE: 'https://example.com/de' }),
      password: 'open sesame',
    }).expect(200);
    const record = res.body as LinkRecord;
    expect(Object.keys(record).sort()).toEqual(
      [
        ...LINK_FIELDS,
        'expires_at',
        'max_clicks',
        'expired_url',
        'disabled',
        'ios_url',
        'android_url',
        'geo',
        'password_protected',
      ].sort(),
    );
    expect(record).toMatchObject({
      expires_at: iso(expires),
      max_clicks: 5,
      expired_url: 'https://example.com/over',
      disabled: true,
      ios_url: 'https://apps.apple.com/app/id1',
      android_url: 'https://play.google.com/store/apps/details?id=x',
      geo: { US: 'https://example.com/us', DE: 'https://example.com/de' },
      password_protected: true,
    });
    expect(JSON.stringify(record)).not.toContain('open sesame');
    // A salted scrypt hash with its parameters, never the password.
    expect(await passwordHash(record.svc_id)).toMatch(
      /^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/,
    );
    // A JSON body may give geo as the object itself, and the form geo[XX]=… as well.
    const json = await t.http
      .post('/url.json')
      .send({
        v: '3',
        key,
        tool: 't',
        channel: 'email',
        url: 'https://example.com/j',
        geo: { FR: 'https://example.com/fr' },
      })
      .expect(200);
    expect(json.body.geo).toEqual({ FR: 'https://example.com/fr' });
    const bracket = await create({ 'geo[gb]': 'https://example.com/gb' }).expect(200);
    expect(bracket.body.geo).toEqual({ GB: 'https://example.com/gb' });
  });

  it('a link without controls has exactly the record it had before; each control shows only when set', async () => {
    const plain = await createLink(t, key);
    expect(Object.keys(plain).sort()).toEqual(LINK_FIELDS);
    const capped = await createLink(t, key, { max_clicks: '2' });
    expect(Object.keys(capped).sort()).toEqual([...LINK_FIELDS, 'max_clicks'].sort());
    const enabled = await createLink(t, key, { disabled: 'false' });
    expect(Object.keys(enabled).sort()).toEqual(LINK_FIELDS);
    const empty = await create({ geo: '{}' }).expect(200);
    expect(Object.keys(empty.body).sort()).toEqual(LINK_FIELDS);
  });

  it('batch gives each control, one value, to every link; a control given as an array is refused', async () => {
    const common: [string, string][] = [
      ['v', '3'],
      ['key', key],
      ['tool', 'publisher-bar'],
      ['channel', 'twitter'],
      ['url[]', 'https://example.com/b1'],
      ['url[]', 'https://example.com/b2'],
    ];
    const res = await t.http
      .post('/url/batch.json')
      .type('form')
      .send(form([...common, ['max_clicks', '3'], ['password', 'batch pass']]))
      .expect(200);
    const records = res.body.svc_urls as LinkRecord[];
    expect(records).toHaveLength(2);
    for (const record of records) {
      expect(record).toMatchObject({ max_clicks: 3, password_protected: true });
    }
    // One hash for the batch's password, checked alike for every link.
    expect(await passwordHash(records[0].svc_id)).toBe(await passwordHash(records[1].svc_id));
    const arrays = await t.http
      .post('/url/batch.json')
      .type('form')
      .send(form([...common, ['max_clicks[]', '1'], ['max_clicks[]', '2']]))
      .expect(400);
    expect(arrays.body.error_message).toBe(
      'Invalid parameter max_clicks: must be given once, as a single value',
    );
  });

  it('static: controls are no part of the fingerprint — they apply when static creates the link', async () => {
    const ask = (params: Record<string, string>) =>
      t.http
        .get('/url/static.json')
        .query({ v: '3', key, tool: 'static-tool', url: 'https://example.com/static', ...params })
        .expect(200);
    const first = await ask({ max_clicks: '3', expired_url: 'https://example.com/gone' });
    expect(first.body).toMatchObject({
      new: true,
      max_clicks: 3,
      expired_url: 'https://example.com/gone',
    });
    const again = await ask({ max_clicks: '7' });
    expect(again.body).toMatchObject({ new: false, svc_id: first.body.svc_id, max_clicks: 3 });
    const without = await ask({});
    expect(without.body).toMatchObject({ new: false, svc_id: first.body.svc_id, max_clicks: 3 });
    // Checked all the same.
    const bad = await t.http
      .get('/url/static.json')
      .query({
        v: '3',
        key,
        tool: 'static-tool',
        url: 'https://example.com/static',
        max_clicks: '0',
      })
      .expect(400);
    expect(bad.body.error_message).toMatch(/^Invalid parameter max_clicks:/);
  });

  it('update sets, changes and removes controls (empty value; disabled=false) and keeps the rest', async () => {
    const link = await createLink(t, key, { tag: 'kept' });
    const expires = inAnHour();
    const set = await update(link.svc_id, {
      expires_at: iso(expires),
      max_clicks: '10',
      expired_url: 'https://example.com/over',
      disabled: '1',
      ios_url: 'https://example.com/ios',
      android_url: 'https://example.com/android',
      geo: '{"DE":"https://example.com/de"}',
      password: 'pw',
    }).expect(200);
    expect(set.body).toEqual({
      ...link,
      expires_at: iso(expires),
      max_clicks: 10,
      expired_url: 'https://example.com/over',
      disabled: true,
      ios_url: 'https://example.com/ios',
      android_url: 'https://example.com/android',
      geo: { DE: 'https://example.com/de' },
      password_protected: true,
      updated_at: set.body.updated_at,
    });
    const changed = await update(link.svc_id, {
      max_clicks: '20',
      geo: '{"AT":"https://a.example/"}',
    }).expect(200);
    expect(changed.body).toMatchObject({ max_clicks: 20, geo: { AT: 'https://a.example/' } });
    expect(changed.body.disabled).toBe(true);
    const cleared = await update(link.svc_id, {
      expires_at: '',
      max_clicks: '',
      expired_url: '',
      disabled: 'false',
      ios_url: '',
      android_url: '',
      geo: '',
      password: '',
    }).expect(200);
    expect(cleared.body).toEqual({ ...link, updated_at: cleared.body.updated_at });
    expect(await passwordHash(link.svc_id)).toBeNull();
    // Given nothing, a control stays as it is.
    await update(link.svc_id, { max_clicks: '4' }).expect(200);
    const kept = await update(link.svc_id, { tag: 'changed' }).expect(200);
    expect(kept.body).toMatchObject({ tag: 'changed', max_clicks: 4 });
  });

  it('controls change after the 30 days of metadata updates; metadata still does not', async () => {
    const link = await createLink(t, key);
    await t.db.query(`UPDATE links SET created_at = now() - interval '31 days' WHERE svc_id = $1`, [
      link.svc_id,
    ]);
    const disabled = await update(link.svc_id, { disabled: 'true' }).expect(200);
    expect(disabled.body.disabled).toBe(true);
    await update(link.svc_id, { disabled: 'false', max_clicks: '9' }).expect(200);
    const tooOld = `Link ${link.svc_id} was created more than 30 days ago; links can be updated only within 30 days of creation`;
    const mixed = await update(link.svc_id, { disabled: 'true', tag: 'x' }).expect(400);
    expect(mixed.body.error_message).toBe(tooOld);
    const nothing = await update(link.svc_id).expect(400);
    expect(nothing.body.error_message).toBe(tooOld);
  });

  it('refuses bad values with 400 naming the parameter', async () => {
    const past = String(Math.floor(Date.now() / 1000) - 60);
    const tooMany = JSON.stringify(
      Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`K${i}`, 'https://example.com/'])),
    );
    const cases: [Record<string, string>, string][] = [
      [{ expires_at: past }, 'Invalid parameter expires_at: must be in the future'],
      [
        { expires_at: '2001-01-01T00:00:00Z' },
        'Invalid parameter expires_at: must be in the future',
      ],
      [{ expires_at: 'tomorrow' }, 'Invalid parameter expires_at: must be a date'],
      [{ expires_at: '' }, 'Invalid parameter expires_at: must not be empty'],
      [{ max_clicks: '0' }, 'Invalid parameter max_clicks: must be a positive integer'],
      [{ max_clicks: '-3' }, 'Invalid parameter max_clicks: must be a positive integer'],
      [{ max_clicks: '1.5' }, 'Invalid parameter max_clicks: must be a positive integer'],
      [{ max_clicks: 'ten' }, 'Invalid parameter max_clicks: must be a positive integer'],
      [{ expired_url: 'example.com/over' }, 'Invalid parameter expired_url: must be an absolute'],
      [{ ios_url: 'javascript:alert(1)' }, 'Invalid parameter ios_url: must be an absolute'],
      [{ android_url: 'ftp://example.com/' }, 'Invalid parameter android_url: must be an absolute'],
      [{ disabled: 'yes' }, 'Invalid parameter disabled: must be true or false'],
      [{ geo: 'US=https://example.com' }, 'Invalid parameter geo: is not valid JSON'],
      [{ geo: '["https://example.com"]' }, 'Invalid parameter geo: must be a JSON object'],
      [{ geo: '"https://example.com"' }, 'Invalid parameter geo: must be a JSON object'],
      [{ geo: '{"XX":"https://example.com"}' }, 'Invalid parameter geo.XX: is not an ISO 3166-1'],
      [{ geo: '{"USA":"https://example.com"}' }, 'Invalid parameter geo.USA: is not an ISO 3166-1'],
      [{ geo: '{"US":"not a url"}' }, 'Invalid parameter geo.US: must be an absolute'],
      [{ geo: '{"US":42}' }, 'Invalid parameter geo.US: must be an absolute'],
      [
        { geo: '{"us":"https://a.example","US":"https://b.example"}' },
        'Invalid parameter geo.US: US is given twice',
      ],
      [{ geo: tooMany }, 'Invalid parameter geo: at most 50 countries'],
      [{ password: 'x'.repeat(257) }, 'Invalid parameter password: must be 1 to 256 characters'],
      [{ password: '' }, 'Invalid parameter password: must not be empty'],
    ];
    for (const [params, message] of cases) {
      const res = await create(params);
      expect({ params, status: res.status }).toEqual({ params, status: 400 });
      expect(res.body.error).toBe(400);
      expect(res.body.error_message).toContain(message);
    }
    // 256 characters (code points) is the longest password; update checks alike.
    await create({ password: '🔑'.repeat(256) }).expect(200);
    const link = await createLink(t, key);
    const bad = await update(link.svc_id, { max_clicks: '-1' }).expect(400);
    expect(bad.body.error_message).toMatch(/^Invalid parameter max_clicks:/);
    const disabled = await update(link.svc_id, { disabled: '' }).expect(400);
    expect(disabled.body.error_message).toBe('Invalid parameter disabled: must be true or false');
  });
});

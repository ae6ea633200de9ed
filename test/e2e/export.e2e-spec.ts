import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Response } from 'supertest';
import { anonymiseIp } from '../../src/common/ip';
import { CLICK_COLUMNS, CONVERSION_COLUMNS, LINK_COLUMNS } from '../../src/export/export-query';
import { TestApp, createTestApp } from '../support/app';
import { waitForClicks } from '../support/clicks';
import { createLink } from '../factories/links';
import { createProject, updateProject } from '../factories/projects';

/**
 * Exports (docs/api.md, "Export"): 100,000 clicks written straight into the analytics store
 * (INSERT … SELECT FROM numbers()) come out as CSV, NDJSON and Parquet equal to what the store
 * holds: each file is read back by the engine itself (file()) and its rows' count and checksum
 * compared with the store's own, joined to the links by another query. Then the period and the
 * filters, the conversions and links exports, the project's ip_storage and ua_storage, and the
 * refusals.
 */

const CLICKS = 100_000;
const STRING = 'Nullable(String)';
/** The types of each exported column, to read a file back as the store holds them. */
const TYPES: Record<string, string> = {
  clicked_at: "DateTime64(3, 'UTC')",
  converted_at: "DateTime64(3, 'UTC')",
  created_at: "DateTime64(3, 'UTC')",
  shared_at: "DateTime64(3, 'UTC')",
  click_id: 'Nullable(UUID)',
  conversion_id: 'UUID',
  is_bot: 'UInt8',
  value: 'Int64',
  imported_clicks: 'Nullable(UInt64)',
  tag_2: 'Array(String)',
  tag_3: 'Array(String)',
  tag_4: 'Array(String)',
  tag_5: 'Array(String)',
};
const structure = (columns: readonly string[]) =>
  columns.map((c) => `${c} ${TYPES[c] ?? STRING}`).join(', ');
/** A row's checksum over its columns as text (NULL as \N): the same for the store and a file. */
const rowHash = (columns: readonly string[], alias = '') =>
  `cityHash64(concat(${columns.map((c) => `ifNull(toString(${alias}${c}), '\\\\N')`).join(", '\\t', ")}))`;

describe('export', () => {
  let t: TestApp;
  let key: string;
  let projectId: string;
  let twitter: { svc_id: string; path: string };
  let email: { svc_id: string; path: string };
  let dir: string;
  let db: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: '1' } });
    db = t.analytics.database;
    dir = mkdtempSync(path.join(tmpdir(), 'svc-export-'));
    key = (await createProject(t, { ip_storage: 'full' })).api_key;
    projectId = (
      await t.db.query<{ id: string }>('SELECT id FROM projects WHERE api_key = $1', [key])
    ).rows[0].id;
    twitter = await createLink(t, key, {
      channel: 'twitter',
      campaign: 'spring',
      campaign_description: 'Spring sale',
    });
    email = await createLink(t, key, { channel: 'email', tag: 'news' });
    const [a, b] = await Promise.all([twitter, email].map(async (l) => linkId(l.svc_id)));
    // One click a minute from 2026-01-01 (about 69 days), a third on the email link, one in ten a bot.
    await t.analytics.command(
      `INSERT INTO ${db}.clicks (project_id, link_id, clicked_at, click_id, referrer, user_agent, ip,
         is_bot, country, region, city, device, browser, os, referrer_host, enriched)
       SELECT toUUID({p:String}), if(number % 3 = 0, {b:UInt64}, {a:UInt64}),
              toDateTime64('2026-01-01 00:00:00', 3, 'UTC') + toIntervalMillisecond(number * 60000 + number % 1000),
              generateUUIDv4(number), if(number % 5 = 0, NULL, concat('https://ref', toString(number % 7), '.example/a,"b"')),
              'Mozilla/5.0 (X11; "quoted", comma)', IPv4NumToString(toUInt32(cityHash64(number) % 4294967296)),
              toUInt8(number % 10 = 0), if(number % 4 = 0, NULL, 'GB'), 'England', 'London', 'desktop', 'Chrome',
              'Windows', if(number % 5 = 0, NULL, 'ref.example'), 1
       FROM numbers(${CLICKS})`,
      { p: projectId, a, b },
    );
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  async function linkId(svcId: string): Promise<string> {
    const { rows } = await t.db.query<{ id: string }>(
      'SELECT id::text AS id FROM links WHERE svc_id = $1',
      [svcId],
    );
    return rows[0].id;
  }

  /** GET /export/{file} with v, key and `query`: the answer, its body as bytes. */
  function exportOf(file: string, query: Record<string, string> = {}, apiKey = key) {
    return t.http
      .get(`/export/${file}`)
      .query({ v: '3', key: apiKey, ...query })
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
  }

  /** The answer's body written to a file the engine reads; its count and checksum there. */
  async function readBack(
    res: Response,
    format: 'CSVWithNames' | 'JSONEachRow' | 'Parquet',
    columns: readonly string[],
  ): Promise<{ n: number; h: string }> {
    const file = path.join(dir, `${Math.random().toString(36).slice(2)}.${format}`);
    writeFileSync(file, res.body as Buffer);
    const [row] = await t.analytics.query<{ n: string; h: string }>(
      `SELECT toString(count()) AS n, toString(sum(${rowHash(columns)})) AS h
       FROM file({file:String}, '${format}', '${structure(columns).replace(/'/g, "\\'")}')`,
      { file },
    );
    return { n: Number(row.n), h: row.h };
  }

  /** The store's clicks of the project under `where`, joined to their links: count and checksum. */
  async function stored(where = '1', linkWhere = '1'): Promise<{ n: number; h: string }> {
    const link = (c: string) =>
      c === 'svc_id' ||
      ['channel', 'service', 'campaign', 'tag', 'tool', 'parent', 'user_id'].includes(c);
    const columns = CLICK_COLUMNS.map((c) => (link(c) ? `l.${c}` : `c.${c}`));
    const [row] = await t.analytics.query<{ n: string; h: string }>(
      `SELECT toString(count()) AS n, toString(sum(cityHash64(concat(${columns
        .map((c) => `ifNull(toString(${c}), '\\\\N')`)
        .join(", '\\t', ")})))) AS h
       FROM ${db}.clicks AS c
       INNER JOIN (SELECT * FROM ${db}.links FINAL WHERE project_id = toUUID({p:String}) AND ${linkWhere}) AS l
         ON l.link_id = c.link_id
       WHERE c.project_id = toUUID({p:String}) AND ${where}`,
      { p: projectId },
    );
    return { n: Number(row.n), h: row.h };
  }

  it('exports 100,000 clicks as CSV, NDJSON and Parquet equal to what the store holds', async () => {
    const all = await stored();
    expect(all.n).toBe(CLICKS);
    const csv = await exportOf('clicks.csv', { with_bots: 'true' }).expect(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="svc-clicks.csv"');
    const body = (csv.body as Buffer).toString('utf8');
    expect(body.slice(0, body.indexOf('\n'))).toBe(CLICK_COLUMNS.map((c) => `"${c}"`).join(','));
    expect(await readBack(csv, 'CSVWithNames', CLICK_COLUMNS)).toEqual(all);

    const ndjson = await exportOf('clicks.ndjson', { with_bots: 'true' }).expect(200);
    expect(ndjson.headers['content-type']).toBe('application/x-ndjson');
    expect(await readBack(ndjson, 'JSONEachRow', CLICK_COLUMNS)).toEqual(all);

    const parquet = await exportOf('clicks.parquet', { with_bots: 'true' }).expect(200);
    expect(parquet.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect((parquet.body as Buffer).subarray(0, 4).toString()).toBe('PAR1');
    expect(await readBack(parquet, 'Parquet', CLICK_COLUMNS)).toEqual(all);
  });

  it('leaves bots out unless with_bots=true, as statistics do', async () => {
    const humans = await stored('c.is_bot = 0');
    expect(humans.n).toBe(CLICKS * 0.9);
    const res = await exportOf('clicks.csv').expect(200);
    expect(await readBack(res, 'CSVWithNames', CLICK_COLUMNS)).toEqual(humans);
  });

  it('restricts the rows to the period and to the filters of statistics', async () => {
    const period = {
      start_date: '2026-01-10',
      end_date: '2026-01-20T05:30:00Z',
      with_bots: 'true',
    };
    const inPeriod =
      "c.clicked_at >= '2026-01-10 00:00:00' AND c.clicked_at < '2026-01-20 06:00:00'";
    const res = await exportOf('clicks.csv', period).expect(200);
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="svc-clicks-20260110-20260120.csv"',
    );
    const expected = await stored(inPeriod);
    expect(expected.n).toBe(10 * 1440 + 6 * 60);
    expect(await readBack(res, 'CSVWithNames', CLICK_COLUMNS)).toEqual(expected);

    const byChannel = await exportOf('clicks.ndjson', { ...period, channel: 'email' }).expect(200);
    expect(await readBack(byChannel, 'JSONEachRow', CLICK_COLUMNS)).toEqual(
      await stored(inPeriod, "channel = 'email'"),
    );
    const byCountry = await exportOf('clicks.csv', { country: 'gb', tool: 'publisher-sharebar' });
    expect(byCountry.status).toBe(200);
    expect(await readBack(byCountry, 'CSVWithNames', CLICK_COLUMNS)).toEqual(
      await stored("c.is_bot = 0 AND c.country = 'GB'"),
    );
    const none = await exportOf('clicks.csv', { campaign: 'nothing' }).expect(200);
    expect((none.body as Buffer).toString()).toBe(
      `${CLICK_COLUMNS.map((c) => `"${c}"`).join(',')}\n`,
    );
  });

  it('stops when its client goes away, and the next export runs', async () => {
    const server = t.app.getHttpServer();
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, resolve));
    const { port } = server.address() as AddressInfo;
    const received = await new Promise<number>((resolve, reject) => {
      const req = get(
        `http://127.0.0.1:${port}/export/clicks.csv?v=3&key=${key}&with_bots=true`,
        (res) => {
          res.once('data', (chunk: Buffer) => {
            req.destroy();
            resolve(chunk.length);
          });
        },
      );
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    });
    expect(received).toBeGreaterThan(0);
    const res = await exportOf('clicks.csv', { with_bots: 'true' }).expect(200);
    expect(await readBack(res, 'CSVWithNames', CLICK_COLUMNS)).toEqual(await stored());
    expect(readdirSync(path.join(t.config.chdbDir, 'export-files'))).toEqual([]);
  });

  it('answers a POST form alike', async () => {
    const res = await t.http
      .post('/export/clicks.csv')
      .type('form')
      .send({ v: '3', key, channel: 'twitter', start_date: '2026-01-01', end_date: '2026-01-02' })
      .expect(200);
    expect(res.text.split('\n')).toHaveLength(1 + 864 + 1);
  });

  it('exports the conversions and the links, with imported clicks', async () => {
    const b = await linkId(email.svc_id);
    await t.analytics.command(
      `INSERT INTO ${db}.conversions (project_id, link_id, converted_at, conversion_id, type, value, click_id, country)
       VALUES (toUUID({p:String}), {b:UInt64}, '2026-02-01 10:00:00.000', generateUUIDv4(1), 'goal_1', 4200, NULL, 'GB'),
              (toUUID({p:String}), {b:UInt64}, '2026-02-02 10:00:00.000', generateUUIDv4(2), 'pageview', 0, NULL, NULL)`,
      { p: projectId, b },
    );
    const conversions = await exportOf('conversions.ndjson').expect(200);
    const rows = (conversions.body as Buffer)
      .toString()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map((r) => Object.keys(r))).toEqual([CONVERSION_COLUMNS, CONVERSION_COLUMNS]);
    expect(rows[0]).toMatchObject({
      converted_at: '2026-02-01 10:00:00.000',
      type: 'goal_1',
      value: 4200,
      svc_id: email.svc_id,
      channel: 'email',
      tag: 'news',
      country: 'GB',
    });
    const onlyGb = await exportOf('conversions.csv', { country: 'GB' }).expect(200);
    expect(await readBack(onlyGb, 'CSVWithNames', CONVERSION_COLUMNS)).toMatchObject({ n: 1 });

    await t.db.query('UPDATE links SET imported_clicks = 1527 WHERE svc_id = $1', [twitter.svc_id]);
    const links = await exportOf('links.ndjson').expect(200);
    const records = (links.body as Buffer)
      .toString()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((r) => Object.keys(r))).toEqual([LINK_COLUMNS, LINK_COLUMNS]);
    expect(records.map((r) => [r.svc_id, r.channel, r.campaign, r.imported_clicks])).toEqual([
      [twitter.svc_id, 'twitter', 'spring', 1527],
      [email.svc_id, 'email', null, null],
    ]);
    const filtered = await exportOf('links.parquet', { channel: 'email' }).expect(200);
    expect(await readBack(filtered, 'Parquet', LINK_COLUMNS)).toMatchObject({ n: 1 });
    const later = await exportOf('links.csv', { start_date: '2030-01-01' }).expect(200);
    expect((later.body as Buffer).toString().split('\n')).toHaveLength(2);
  });

  it("exports a click's address and user agent as the project keeps them: anonymised 81.2.69.0, parsed none", async () => {
    const anonymised = (await createProject(t, { ip_storage: 'anonymised' })).api_key;
    const link = await createLink(t, anonymised);
    await t.http
      .get(`/${link.path}`)
      .set('Host', 'svc.test')
      .set('X-Forwarded-For', '81.2.69.160')
      .set('User-Agent', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0.0.0 Safari/537.36')
      .expect(302);
    await waitForClicks(t, { [link.svc_id]: { clicks: 1, bots: 0 } });
    const res = await exportOf('clicks.ndjson', {}, anonymised).expect(200);
    const [click] = (res.body as Buffer)
      .toString()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(click).toMatchObject({ ip: '81.2.69.0', country: 'GB', city: 'London' });
    expect(click.user_agent).toContain('Chrome/120');

    // Clicks stored in full before the project kept less are exported as it keeps them now.
    await updateProject(t, key, { ip_storage: 'anonymised', ua_storage: 'parsed' });
    const now = await exportOf('clicks.ndjson', {
      start_date: '2026-01-01',
      end_date: '2026-01-01T01:00:00Z',
    });
    const rows = (now.body as Buffer)
      .toString()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { ip: string; user_agent: string | null });
    expect(rows).toHaveLength(54);
    expect(rows.every((r) => r.ip.endsWith('.0') && r.user_agent === null)).toBe(true);
    await updateProject(t, key, { ip_storage: 'none', ua_storage: 'full' });
    const none = await exportOf('clicks.csv', {
      start_date: '2026-01-01',
      end_date: '2026-01-01T01:00:00Z',
    });
    expect(await readBack(none, 'CSVWithNames', CLICK_COLUMNS)).toMatchObject({ n: 54 });
    expect((none.body as Buffer).toString().split('\n')[1]).toMatch(/,\\N,0,"GB",/);
    await updateProject(t, key, { ip_storage: 'full', ua_storage: 'full' });
  });

  it('anonymises an address in SQL as the service does in JavaScript', async () => {
    const addresses = [
      '81.2.69.160',
      '2a00:1450:4001:80b::200e',
      '2a00::1',
      '::1',
      '2001:db8:0:1::5',
      '10.0.0.0',
    ];
    const { ipExpression } = await import('../../src/export/export-query');
    const rows = await t.analytics.query<{ ip: string; out: string }>(
      `SELECT ip, ${ipExpression('ip', 'anonymised')} AS out FROM (SELECT arrayJoin({ips:Array(String)}) AS ip)`,
      { ips: addresses },
    );
    expect(rows.map((r) => r.out)).toEqual(addresses.map(anonymiseIp));
  });

  it('refuses bad requests in the statistics shape, naming the parameter', async () => {
    const refusal = async (
      file: string,
      query: Record<string, string>,
      status: number,
      message: string,
    ) => {
      const res = await t.http.get(`/export/${file}`).query(query);
      expect([res.status, res.body]).toEqual([status, { error: status, error_message: message }]);
    };
    await refusal(
      'clicks.xml',
      { v: '3', key },
      400,
      'Invalid parameter format: "xml" is not supported; use csv, ndjson or parquet',
    );
    await refusal(
      'visits.csv',
      { v: '3', key },
      404,
      'No export "visits": the exports are clicks, conversions and links',
    );
    await refusal('clicks.csv', { key }, 400, 'Missing required parameter: v');
    await refusal('clicks.csv', { v: '3', key: 'nope' }, 403, 'Invalid API key specified');
    await refusal(
      'clicks.csv',
      { v: '3', key, start_date: '2026-02-01', end_date: '2026-01-01' },
      400,
      'Invalid parameter end_date: must be after start_date',
    );
    await refusal(
      'clicks.csv',
      { v: '3', key, country: 'G1' },
      400,
      'Invalid parameter country: must be a two-letter ISO 3166-1 country code',
    );
    await refusal(
      'links.csv',
      { v: '3', key, device: 'mobile' },
      400,
      'Invalid parameter device: filters clicks and conversions, not links',
    );
    await refusal(
      'links.csv',
      { v: '3', key, with_bots: 'true' },
      400,
      'Invalid parameter with_bots: only clicks have bots, not links',
    );
    await refusal(
      'clicks.csv',
      { v: '3', key, shared_at_hour_of_day: '24' },
      400,
      'Invalid parameter shared_at_hour_of_day: must be an integer from 0 to 23',
    );
  });
});

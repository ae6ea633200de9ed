import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXIT, runCli } from '../../src/cli/cli';
import { TestApp, createTestApp } from '../support/app';
import { BROWSER } from '../support/clicks';
import { TEST_REDIS_URL, databaseUrl } from '../support/env';
import { CreatedProject, connectDomain, createProject } from '../factories/projects';

/** The fixtures: test/fixtures/import/README.md says where each file's columns come from. */
const FIXTURES = path.join(__dirname, '../fixtures/import');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));

const PATH_RULE =
  'must be URL-safe segments (A-Z a-z 0-9 _ . ~ -) separated by /, at most 200 characters';
const BAD_URL = 'Invalid parameter url: must be an absolute http(s) URL';
const notOnProject = (domain: string) =>
  `domain ${domain} is not one the project may make links on (connect it to the project, or choose the links' domain)`;

interface LinkRow {
  svc_id: string;
  original_url: string;
  redirect_url: string;
  tool: string;
  application: string;
  notes: string | null;
  tag: string | null;
  tag_2: string[] | null;
  created_at: string;
  imported_clicks: string | null;
}

describe('importing links (docs/api.md, "Importing links")', () => {
  let t: TestApp;
  let project: CreatedProject;
  let other: CreatedProject;

  beforeAll(async () => {
    t = await createTestApp();
    project = await createProject(t);
    other = await createProject(t);
    for (const host of ['go.example.com', 'bt.example.com', 'kt.example.com', 'cs.example.com']) {
      await connectDomain(t, host, [project.api_key]);
    }
    await connectDomain(t, 'cli.example.com', [other.api_key]);
  });
  afterAll(() => t.close());

  const keys = () => ({ subscription_key: t.subscriptionKey, application_key: t.applicationKey });

  function importFile(
    file: string,
    query: Record<string, string>,
    type = 'text/csv',
    apiKey = project.api_key,
  ) {
    return t.http
      .post(`/projects/${apiKey}/import`)
      .query({ ...keys(), ...query })
      .set('Content-Type', type)
      .send(fixture(file));
  }

  /** The project's links on a domain, as PostgreSQL holds them. */
  async function links(domain: string, projectKey = project.api_key): Promise<LinkRow[]> {
    const { rows } = await t.db.query<LinkRow>(
      `SELECT l.svc_id, l.original_url, l.redirect_url, l.tool, l.application, l.notes, l.tag,
              l.tag_2, to_char(l.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at,
              l.imported_clicks::text AS imported_clicks
       FROM links l JOIN projects p ON p.id = l.project_id
       WHERE p.api_key = $1 AND l.domain = $2 ORDER BY l.svc_id`,
      [projectKey, domain],
    );
    return rows;
  }

  /** Imports twice: the second run makes nothing, skips what the first made, rejects the same. */
  async function importTwice(
    file: string,
    query: Record<string, string>,
    first: Record<string, unknown>,
    domain: string,
    type?: string,
  ): Promise<LinkRow[]> {
    const one = await importFile(file, query, type).expect(200);
    expect(one.body.request).toEqual({
      ...keys(),
      ...query,
      apikey: project.api_key,
      method: 'import',
      object: 'project',
    });
    expect(one.body.response.import).toEqual({ format: query.format, ...first });
    const made = await links(domain);
    expect(made).toHaveLength(first.made as number);
    const two = await importFile(file, query, type).expect(200);
    const report = one.body.response.import as { made: number; skipped: number };
    expect(two.body.response.import).toEqual(
      expect.objectContaining({
        made: 0,
        skipped: report.made + report.skipped,
        rejected: first.rejected,
        imported_clicks: 0,
      }),
    );
    expect(await links(domain)).toEqual(made);
    return made;
  }

  const row = (fields: Partial<LinkRow> & Pick<LinkRow, 'svc_id' | 'original_url'>): LinkRow =>
    ({
      redirect_url: fields.original_url,
      notes: null,
      tag: null,
      tag_2: null,
      imported_clicks: null,
      ...fields,
    }) as LinkRow;

  it('imports a Shlink export twice: the same links, and an imported path redirects', async () => {
    const made = await importTwice(
      'shlink.csv',
      { format: 'shlink' },
      {
        read: 5,
        made: 3,
        skipped: 0,
        rejected: 2,
        imported_clicks: 1527,
        rejections: [
          { line: 4, reason: `path bad code: ${PATH_RULE}` },
          { line: 7, reason: BAD_URL },
        ],
      },
      'go.example.com',
    );
    const shlink = { tool: 'import-shlink', application: 'import' };
    expect(made).toEqual([
      row({
        svc_id: 'go.example.com_docs',
        original_url: 'https://docs.example.com/',
        ...shlink,
        notes: 'Docs, "v2" edition',
        created_at: '2023-03-15T09:00:00Z',
        imported_clicks: '0',
      }),
      row({
        svc_id: 'go.example.com_spring-sale',
        original_url: 'https://shop.example.com/spring',
        ...shlink,
        notes: 'Spring sale',
        tag: 'promo',
        tag_2: ['promo', '2023'],
        created_at: '2023-03-14T09:26:53Z',
        imported_clicks: '1520',
      }),
      row({
        svc_id: 'go.example.com_team_blog',
        original_url: 'https://blog.example.com/?utm_source=shlink',
        ...shlink,
        notes: 'Blog\n(two lines)',
        tag: 'team',
        tag_2: ['team'],
        created_at: '2023-04-03T00:00:00Z',
        imported_clicks: '7',
      }),
    ]);
    await t.http
      .get('/spring-sale')
      .set('Host', 'go.example.com')
      .set('User-Agent', BROWSER)
      .expect(302)
      .expect('Location', 'https://shop.example.com/spring');
    await t.http
      .get('/team/blog')
      .set('Host', 'go.example.com')
      .set('User-Agent', BROWSER)
      .expect(302)
      .expect('Location', 'https://blog.example.com/?utm_source=shlink');
    // The figure is the link record's extension field, beside the clicks counted here.
    await t.settle();
    const list = await t.http
      .get('/url/list.json')
      .query({ v: 3, key: project.api_key, domain: 'go.example.com', sort_order: 'asc' })
      .expect(200);
    const listed = list.body.links as {
      svc_id: string;
      clicks: number;
      imported_clicks?: number;
    }[];
    expect(listed.map((l) => [l.svc_id, l.clicks, l.imported_clicks])).toEqual([
      ['go.example.com_spring-sale', 1, 1520],
      ['go.example.com_docs', 0, 0],
      ['go.example.com_team_blog', 1, 7],
    ]);
  });

  it('imports the yourls_url table twice onto the project’s default domain', async () => {
    const made = await importTwice(
      'yourls.csv',
      { format: 'yourls' },
      {
        read: 6,
        made: 3,
        skipped: 0,
        rejected: 3,
        imported_clicks: 1242,
        rejections: [
          { line: 5, reason: BAD_URL },
          {
            line: 6,
            reason:
              'created_at: must be a date (YYYY-MM-DD), a timestamp (ISO 8601) or UNIX seconds',
          },
          { line: 7, reason: 'Invalid parameter path: stats belongs to the API on svc.test' },
        ],
      },
      'svc.test',
    );
    expect(made.map((l) => [l.svc_id, l.notes, l.created_at, l.imported_clicks])).toEqual([
      ['svc.test_ozh', 'ozh.org', '2023-01-05T14:22:10Z', '42'],
      ['svc.test_yourls', 'YOURLS: Your Own URL Shortener', '2023-01-05T14:22:11Z', '1200'],
      ['svc.test_yourlsblog', "YOURLS' Blog", '2023-01-05T14:22:12Z', '0'],
    ]);
    await t.http
      .get('/ozh')
      .set('Host', 'svc.test')
      .expect(302)
      .expect('Location', 'https://ozh.org/');
  });

  it('imports a Bitly export onto a domain of the project, not bit.ly', async () => {
    const refused = await importFile('bitly.csv', { format: 'bitly' }).expect(200);
    expect(refused.body.response.import).toEqual({
      format: 'bitly',
      read: 4,
      made: 0,
      skipped: 0,
      rejected: 4,
      imported_clicks: 0,
      rejections: [
        { line: 2, reason: notOnProject('bit.ly') },
        { line: 3, reason: notOnProject('bit.ly') },
        { line: 4, reason: 'clicks: -4 is not a count' },
        { line: 5, reason: 'no URL to redirect to' },
      ],
    });
    const made = await importTwice(
      'bitly.csv',
      { format: 'bitly', domain: 'bt.example.com' },
      {
        read: 4,
        made: 2,
        skipped: 0,
        rejected: 2,
        imported_clicks: 268,
        rejections: [
          { line: 4, reason: 'clicks: -4 is not a count' },
          { line: 5, reason: 'no URL to redirect to' },
        ],
      },
      'bt.example.com',
    );
    expect(made.map((l) => [l.svc_id, l.tag, l.tag_2, l.created_at])).toEqual([
      ['bt.example.com_3xYzAbC', 'marketing', ['marketing', 'q1'], '2023-02-01T12:30:00Z'],
      ['bt.example.com_spring23', null, null, '2023-02-02T08:00:00Z'],
    ]);
    await t.http
      .get('/3xYzAbC')
      .set('Host', 'bt.example.com')
      .expect(302)
      .expect('Location', 'https://www.example.com/pricing');
  });

  it("imports Kutt's API answers (JSON lines) twice", async () => {
    const made = await importTwice(
      'kutt.jsonl',
      { format: 'kutt' },
      {
        read: 4,
        made: 2,
        skipped: 0,
        rejected: 2,
        imported_clicks: 11,
        rejections: [
          { line: 1, reason: `data[1]: ${BAD_URL}` },
          { line: 3, reason: 'not JSON' },
        ],
      },
      'kt.example.com',
      'application/x-ndjson',
    );
    expect(made.map((l) => [l.svc_id, l.notes, l.imported_clicks])).toEqual([
      ['kt.example.com_kt1', 'First', '11'],
      ['kt.example.com_kt3', null, '0'],
    ]);
    await t.http.get('/kt3').set('Host', 'kt.example.com').expect(302);
  });

  it("imports svc's CSV twice: a path given twice for two URLs, or taken, is rejected", async () => {
    const first = {
      read: 6,
      made: 2,
      skipped: 1,
      rejected: 3,
      imported_clicks: 9,
      rejections: [
        { line: 4, reason: 'path a on cs.example.com is given on line 2 for another URL' },
        { line: 5, reason: `path d"x: ${PATH_RULE}` },
        { line: 6, reason: notOnProject('elsewhere.example.com') },
      ],
    };
    await importTwice('generic.csv', { format: 'csv' }, first, 'cs.example.com');
    const again = await importFile('generic.csv', { format: 'csv' }).expect(200);
    expect(again.body.response.import.rejections[0]).toEqual({
      line: 4,
      reason: 'path a is taken on cs.example.com by a link to another URL',
    });
    // Another project's import of the same paths is refused, never overwriting.
    await connectDomain(t, 'cs.example.com_shared', [project.api_key, other.api_key]);
    await importFile('generic.csv', { format: 'csv', domain: 'cs.example.com_shared' }).expect(200);
    const taken = await importFile(
      'generic.csv',
      { format: 'csv', domain: 'cs.example.com_shared' },
      'text/csv',
      other.api_key,
    ).expect(200);
    expect(taken.body.response.import.rejections[0]).toEqual({
      line: 2,
      reason: 'path a is taken on cs.example.com_shared by a link of another project',
    });
  });

  it('the CLI imports with progress and a report, and its links are the same', async () => {
    const env = {
      DATABASE_URL: databaseUrl(t.databaseName),
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: t.config.redisPrefix,
      DATA_DIR: t.config.dataDir,
      CHDB_DIR: t.config.chdbDir,
      CLICKHOUSE_DATABASE: t.config.clickhouseDatabase,
      DEFAULT_DOMAIN: 'svc.test',
      LOG_LEVEL: 'silent',
    };
    const cli = async (...argv: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runCli(
        argv,
        { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), isTTY: false },
        { env },
      );
      return { code, stdout, stderr };
    };
    const file = path.join(FIXTURES, 'generic.csv');
    const argv = ['import', 'csv', file, '--project', other.api_key, '--domain', 'cli.example.com'];
    const one = await cli(...argv);
    expect(one.code).toBe(EXIT.ok);
    expect(one.stderr).toMatch(/^import +\[#{30}\] 100\.0% 394\/394\n$/m);
    expect(one.stdout).toBe(
      [
        `format: csv\nfile: ${file}\nread: 6\nmade: 3\nskipped: 1\nrejected: 2\nimported_clicks: 9\n`,
        'line: 4\nreason: path a on cli.example.com is given on line 2 for another URL\n',
        `line: 5\nreason: path d"x: ${PATH_RULE}\n`,
      ].join('\n'),
    );
    const two = await cli(...argv, '--json');
    expect(two.code).toBe(EXIT.ok);
    expect(JSON.parse(two.stdout)[0]).toEqual(
      expect.objectContaining({ made: '0', skipped: '4', rejected: '2' }),
    );
    expect((await links('cli.example.com', other.api_key)).map((l) => l.svc_id)).toEqual([
      'cli.example.com_a',
      'cli.example.com_b',
      'cli.example.com_e',
    ]);
    // The running service learnt of the paths the CLI made.
    await t.http
      .get('/a')
      .set('Host', 'cli.example.com')
      .expect(302)
      .expect('Location', 'https://example.com/a');
    const usage = await cli('import', 'csv');
    expect(usage.code).toBe(EXIT.usage);
    expect(usage.stderr).toContain('import needs <path of the file>');
  });

  it('answers bad requests with a 4xx naming the parameter, and 413 past 4 MiB', async () => {
    const error = (res: { body: { error: { code: number; message: string } } }) => res.body.error;
    expect(error(await importFile('generic.csv', {}).expect(400))).toEqual({
      code: 1001,
      message: 'Missing required parameter: format',
    });
    expect(error(await importFile('generic.csv', { format: 'rebrandly' }).expect(400))).toEqual({
      code: 1002,
      message: 'Invalid parameter format: must be one of shlink, yourls, bitly, kutt, csv',
    });
    expect(error(await importFile('generic.csv', { format: 'shlink' }).expect(400))).toEqual({
      code: 1002,
      message:
        'Invalid parameter file: its first line names no column longurl, shortcode: not a shlink file',
    });
    expect(
      error(await importFile('generic.csv', { format: 'csv', domain: 'nope.example' }).expect(400)),
    ).toEqual({
      code: 1002,
      message:
        'Invalid parameter domain: nope.example is not a domain the project may make links on',
    });
    const form = await t.http
      .post(`/projects/${project.api_key}/import`)
      .type('form')
      .send({ ...keys(), format: 'csv', file: 'url,path' })
      .expect(400);
    expect(error(form).message).toBe(
      'Invalid parameter file: send the file as the request body, with Content-Type text/csv, text/plain, application/x-ndjson, application/octet-stream',
    );
    const big = await t.http
      .post(`/projects/${project.api_key}/import`)
      .query({ ...keys(), format: 'csv' })
      .set('Content-Type', 'text/csv')
      .send(Buffer.alloc(4 * 1024 * 1024 + 1, 'a'))
      .expect(413);
    expect(error(big)).toEqual({
      code: 1002,
      message:
        'Invalid parameter file: larger than 4194304 bytes, the most this endpoint takes; import a larger file with `npm run svc -- import`',
    });
    const binary = await t.http
      .post(`/projects/${project.api_key}/import`)
      .query({ ...keys(), format: 'csv' })
      .set('Content-Type', 'text/csv')
      .send(Buffer.from([0x75, 0x72, 0x6c, 0xff, 0x0a]))
      .expect(400);
    expect(error(binary).message).toBe('Invalid parameter file: is not valid UTF-8');
    await t.http
      .post(`/projects/${project.api_key}/import`)
      .query({ subscription_key: t.subscriptionKey, format: 'csv' })
      .set('Content-Type', 'text/csv')
      .send(fixture('generic.csv'))
      .expect(400);
    expect(
      error(
        await t.http
          .post(`/projects/${'0'.repeat(64)}/import`)
          .query({ ...keys(), format: 'csv' })
          .set('Content-Type', 'text/csv')
          .send(fixture('generic.csv'))
          .expect(404),
      ).message,
    ).toBe('Project not found: no live project has this api_key');
  });
});

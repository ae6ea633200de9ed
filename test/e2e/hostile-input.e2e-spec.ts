import { TestApp, createTestApp } from '../support/app';
import { connectDomain, createProject } from '../factories/projects';
import { createLink, form } from '../factories/links';

/**
 * Hostile bytes (docs/api.md, "Errors"): a NUL, invalid UTF-8 or a lone surrogate in any parameter of any
 * endpoint is a 400 naming the parameter, and on the redirect path the domain's not-found answer.
 * The cases are generated from the OpenAPI document the app serves, so a new parameter is covered
 * without anyone listing it here.
 */

interface OpenApiParameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
}

interface OpenApiSchema {
  $ref?: string;
  properties?: Record<string, unknown>;
  required?: string[];
}

interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema: OpenApiSchema }> };
  security?: Record<string, string[]>[];
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: {
    schemas?: Record<string, OpenApiSchema>;
    securitySchemes?: Record<string, { name: string }>;
  };
}

/** One hostile value, as it travels percent-encoded in a query string or form body. */
interface Hostile {
  label: string;
  encoded: string;
}

const HOSTILE: Hostile[] = [
  { label: 'NUL', encoded: 'a%00b' },
  { label: 'invalid UTF-8 %C3%28', encoded: '%C3%28' },
  { label: 'invalid UTF-8 %FF', encoded: 'x%FF' },
  { label: 'lone surrogate %ED%A0%80', encoded: '%ED%A0%80' },
];

/** The same values inside a JSON text: escapes for NUL and the surrogate, a raw byte for invalid UTF-8. */
const HOSTILE_JSON: { label: string; text: Buffer }[] = [
  { label: 'NUL escape', text: Buffer.from('"a\\u0000b"') },
  { label: 'lone surrogate escape', text: Buffer.from('"\\ud800x"') },
  { label: 'low surrogate first', text: Buffer.from('"\\udc00\\ud800"') },
  {
    label: 'invalid UTF-8 byte',
    text: Buffer.concat([Buffer.from('"x'), Buffer.from([0xff]), Buffer.from('"')]),
  },
];

type Where = 'query' | 'form' | 'json body' | 'path' | 'json field';

interface Case {
  method: 'get' | 'post';
  /** The OpenAPI path, e.g. `/stats/{svc_id}/intervals.json`. */
  template: string;
  parameter: string;
  where: Where;
  hostile: string;
  /** Everything the request needs, built when the fixtures exist. */
  send: () => Promise<{ status: number; body: unknown; text: string; type: string }>;
}

describe('hostile bytes in parameters', () => {
  let t: TestApp;
  let document: OpenApiDocument;
  /** Valid values for required parameters, so that only the hostile one is wrong. */
  let valid: Record<string, string>;
  const hostname = 'go.hostile.example';

  beforeAll(async () => {
    t = await createTestApp({ env: { CREATE_RATE_LIMIT: '1000000' } });
    const project = await createProject(t, { conversions: { enabled: true, domains: 'all' } });
    await connectDomain(t, hostname, [project.api_key]);
    const link = await createLink(t, project.api_key);
    valid = {
      v: '3',
      key: project.api_key,
      tool: 'publisher-bar',
      channel: 'twitter',
      url: 'https://example.com/a',
      text: 'Read http://example.com/a',
      destination: 'https://share.example/?u=SVC_URL&t=SVC_TEXT',
      start_date: '2026-01-01',
      end_date: '2026-01-02',
      svc_id: link.svc_id,
      svc_url: link.svc_id,
      conversion_type: 'goal_1',
      conversion_value: '1',
      subscription_key: t.subscriptionKey,
      application_key: t.applicationKey,
      json: '{}',
      api_key: project.api_key,
      hostname,
      format: 'json',
    };
    document = (await t.http.get('/docs-json').expect(200)).body as OpenApiDocument;
  });
  afterAll(() => t.close());

  function formFields(operation: OpenApiOperation): { name: string; required: boolean }[] {
    const content = operation.requestBody?.content['application/x-www-form-urlencoded'];
    if (!content) return [];
    let schema = content.schema;
    if (schema.$ref) schema = document.components?.schemas?.[schema.$ref.split('/').pop()!] ?? {};
    return Object.keys(schema.properties ?? {}).map((name) => ({
      name,
      required: schema.required?.includes(name) ?? false,
    }));
  }

  /** Every (operation, parameter, place, hostile value) of the document. */
  function generateCases(): Case[] {
    const cases: Case[] = [];
    for (const [template, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (method !== 'get' && method !== 'post') continue;
        const parameters = operation.parameters ?? [];
        const pathNames = parameters.filter((p) => p.in === 'path').map((p) => p.name);
        const queryParams = parameters.filter((p) => p.in === 'query');
        const fields = formFields(operation);
        // The keys an operation requires are its first security requirement's (docs/api.md): the
        // document lists them as parameters too, but not as required ones.
        const keys = Object.keys(operation.security?.[0] ?? {}).map(
          (scheme) => document.components?.securitySchemes?.[scheme]?.name ?? scheme,
        );
        const required = [
          ...new Set([
            ...keys,
            ...[...queryParams, ...fields].filter((p) => p.required).map((p) => p.name),
          ]),
        ];
        const base = (except: string): [string, string][] =>
          required.filter((name) => name !== except).map((name) => [name, valid[name] ?? 'x']);
        const pathWith = (name: string | null, encoded: string): string =>
          template.replace(/\{(\w+)\}/g, (_, p: string) =>
            p === name ? encoded : encodeURIComponent(valid[p] ?? 'x'),
          );
        const request =
          (path: string, query: string, body?: { type: string; data: string | Buffer }) =>
          async () => {
            let req = (
              method === 'get' ? t.http.get(`${path}?${query}`) : t.http.post(`${path}?${query}`)
            ).timeout(5000);
            // As given: superagent would serialise a Buffer as JSON.
            if (body)
              req = req
                .set('Content-Type', body.type)
                .serialize((data: unknown) => data as string)
                .send(body.data);
            const res = await req;
            return {
              status: res.status,
              body: res.body as unknown,
              text: res.text,
              type: res.type,
            };
          };
        for (const hostile of HOSTILE) {
          for (const name of pathNames) {
            cases.push({
              method,
              template,
              parameter: name,
              where: 'path',
              hostile: hostile.label,
              send: request(pathWith(name, hostile.encoded), form(base(name))),
            });
          }
          for (const { name } of queryParams) {
            const query = `${form(base(name))}&${encodeURIComponent(name)}=${hostile.encoded}`;
            cases.push({
              method,
              template,
              parameter: name,
              where: 'query',
              hostile: hostile.label,
              send: request(pathWith(null, ''), query),
            });
            if (method === 'post') {
              // POST takes its parameters from the form body too (docs/api.md).
              cases.push({
                method,
                template,
                parameter: name,
                where: 'form',
                hostile: hostile.label,
                send: request(pathWith(null, ''), '', {
                  type: 'application/x-www-form-urlencoded',
                  data: query,
                }),
              });
            }
          }
          for (const { name } of fields) {
            const data = `${form(base(name))}&${encodeURIComponent(name)}=${hostile.encoded}`;
            cases.push({
              method,
              template,
              parameter: name,
              where: 'form',
              hostile: hostile.label,
              send: request(pathWith(null, ''), '', {
                type: 'application/x-www-form-urlencoded',
                data,
              }),
            });
          }
        }
        // A POST takes a JSON body as well as a form (the parsers are global).
        const jsonNames = [...fields, ...(method === 'post' ? queryParams : [])];
        for (const hostile of HOSTILE_JSON) {
          for (const { name } of jsonNames) {
            const rest = Object.fromEntries(base(name));
            const data = Buffer.concat([
              Buffer.from(
                `${JSON.stringify(rest).slice(0, -1)}${Object.keys(rest).length > 0 ? ',' : ''}${JSON.stringify(name)}:`,
              ),
              hostile.text,
              Buffer.from('}'),
            ]);
            cases.push({
              method,
              template,
              parameter: name,
              where: 'json body',
              hostile: hostile.label,
              send: request(pathWith(null, ''), '', { type: 'application/json', data }),
            });
            if (name === 'json') {
              // The admin `json` parameter is JSON text: a field inside it counts too.
              const inner = Buffer.concat([
                Buffer.from('{"name":'),
                hostile.text,
                Buffer.from('}'),
              ]);
              const encoded = [...inner]
                .map((byte) => `%${byte.toString(16).padStart(2, '0')}`)
                .join('');
              cases.push({
                method,
                template,
                parameter: 'json',
                where: 'json field',
                hostile: hostile.label,
                send: request(pathWith(null, ''), '', {
                  type: 'application/x-www-form-urlencoded',
                  data: `${form(base(name))}&json=${encoded}`,
                }),
              });
            }
          }
        }
      }
    }
    return cases;
  }

  /**
   * The message of the error shape the endpoint uses (docs/api.md, "Errors"), or null when the
   * shape is wrong.
   */
  function errorMessage(template: string, body: unknown): string | null {
    if (/^\/(projects|domains|webhooks|conversions)\//.test(template)) {
      const admin = body as { request?: unknown; error?: { code?: unknown; message?: unknown } };
      const ok =
        admin.error?.code === 1002 && typeof admin.request === 'object' && admin.request !== null;
      return ok && typeof admin.error?.message === 'string' ? admin.error.message : null;
    }
    const link = body as { error?: unknown; error_message?: unknown };
    return link.error === 400 && typeof link.error_message === 'string' ? link.error_message : null;
  }

  it('covers every parameter of the endpoints the issue names, and refuses each hostile value with a 400 naming it', async () => {
    const cases = generateCases();
    const covered = new Set(
      cases.map((c) => `${c.method.toUpperCase()} ${c.template} ${c.parameter} ${c.where}`),
    );
    const expected = [
      ...['channel', 'tool', 'notes', 'parent', 'tag', 'user_id'].map(
        (p) => `GET /url.{format} ${p} query`,
      ),
      ...['channel', 'tool', 'notes', 'parent', 'tag', 'user_id'].map(
        (p) => `POST /url.{format} ${p} form`,
      ),
      'GET /url/static.{format} channel query',
      'POST /url/batch.{format} url form',
      'POST /url/update/{svc_id}.{format} svc_id path',
      ...['channel', 'tag', 'campaign', 'user_id', 'parent', 'tool', 'domain'].flatMap((p) => [
        `GET /stats/range.json ${p} query`,
        `GET /stats/totals.json ${p} query`,
        `POST /stats/totals.json ${p} form`,
      ]),
      'GET /stats/{svc_id}/intervals.json svc_id path',
      'POST /projects/new json form',
      'POST /projects/new json json field',
      'POST /projects/new subscription_key json body',
      'POST /url.{format} notes json body',
      'POST /stats/totals.json tag json body',
      'POST /projects/{api_key}/update api_key path',
      'POST /domains/{hostname}/update hostname path',
      'GET /conversions/new svc_url query',
      'GET /conversions/new ip_address query',
      'GET /url.{format} tag_3 query',
      'GET /url.{format} service_postid query',
    ];
    expect(expected.filter((name) => !covered.has(name))).toEqual([]);
    expect(cases.length).toBeGreaterThan(4000);

    const failures: string[] = [];
    let serverErrors = 0;
    for (const c of cases) {
      const label = `${c.method.toUpperCase()} ${c.template} ${c.parameter} (${c.where}, ${c.hostile})`;
      const res = await c.send();
      if (res.status >= 500) serverErrors++;
      if (res.status !== 400) {
        failures.push(`${label}: ${res.status} ${res.text.slice(0, 160)}`);
        continue;
      }
      const message = errorMessage(c.template, res.body);
      if (message === null) {
        failures.push(`${label}: not the endpoint's error shape: ${res.text.slice(0, 160)}`);
        continue;
      }
      const named = new RegExp(
        `^Invalid parameter ${c.parameter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:[:.[]|$)`,
      );
      if (!named.test(message)) failures.push(`${label}: message does not name it: ${message}`);
    }
    expect({
      cases: cases.length,
      serverErrors,
      failed: failures.length,
      failures: failures.slice(0, 30),
    }).toEqual({
      cases: cases.length,
      serverErrors: 0,
      failed: 0,
      failures: [],
    });
  }, 300_000);

  it('renders the refusal in the endpoint format: txt as plain text, callback as JSON-P', async () => {
    const base = form([
      ['v', '3'],
      ['key', valid.key],
      ['tool', 'bar'],
      ['url', 'https://example.com/a'],
    ]);
    const txt = await t.http.get(`/url.txt?${base}&channel=%00`).expect(400);
    expect(txt.type).toBe('text/plain');
    expect(txt.text).toBe('Invalid parameter channel: contains a NUL character');
    const jsonp = await t.http.get(`/url.json?${base}&callback=cb&channel=%FF`).expect(400);
    expect(jsonp.type).toBe('application/javascript');
    expect(jsonp.text).toBe(
      'cb({"error":400,"error_message":"Invalid parameter channel: is not valid UTF-8"});',
    );
    const surrogate = await t.http
      .post('/projects/new')
      .type('form')
      .send(
        `subscription_key=${t.subscriptionKey}&json=${encodeURIComponent('{"name":"a","admins":["\\udfff"]}')}`,
      )
      .expect(400);
    expect(surrogate.body).toEqual({
      request: {
        subscription_key: t.subscriptionKey,
        json: '{"name":"a","admins":["\\udfff"]}',
        method: 'new',
        object: 'project',
      },
      error: {
        code: 1002,
        message: 'Invalid parameter json.admins[0]: contains an unpaired surrogate',
      },
    });
  });

  it('names the parameter of a nested array or object value', async () => {
    const base = form([
      ['v', '3'],
      ['key', valid.key],
      ['tool', 'bar'],
      ['channel', 'twitter'],
    ]);
    const res = await t.http
      .post('/url/batch.json')
      .type('form')
      .send(`${base}&url[]=https://example.com/a&url[]=%00`)
      .expect(400);
    expect(res.body).toEqual({
      error: 400,
      error_message: 'Invalid parameter url[1]: contains a NUL character',
    });
    const key = await t.http.get(`/stats/range.json?v=3&key=${valid.key}&a%00=1`).expect(400);
    expect(key.body).toEqual({
      error: 400,
      error_message: 'Invalid parameter a%00: its name contains a NUL character',
    });
  });

  it('refuses a body nested deeper than any request needs, naming the parameter, instead of overflowing the stack', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const res = await t.http
      .post('/projects/new')
      .set('Content-Type', 'application/json')
      .send(`{"subscription_key":"${t.subscriptionKey}","json":${deep}}`)
      .expect(400);
    expect(res.body).toEqual({
      request: {
        subscription_key: t.subscriptionKey,
        json: [null],
        method: 'new',
        object: 'project',
      },
      error: {
        code: 1002,
        message: `Invalid parameter json${'[0]'.repeat(32)}: is nested more than 32 levels deep`,
      },
    });
  });

  describe('the redirect path', () => {
    const PATHS = ['%00', 'ab%00cd', '%FF', 'x%C3%28', '%ED%A0%80', '%E0%A4%A', 'seg/%00'];

    it.each(PATHS)('/%s on the default domain answers the not-found page', async (path) => {
      const res = await t.http.get(`/${path}`).set('Host', 'svc.test').expect(404);
      expect(res.type).toBe('text/html');
      expect(res.text).toContain('Link not found');
      await t.http.head(`/${path}`).set('Host', 'svc.test').expect(404);
    });

    it.each(PATHS)(
      '/%s on a connected domain redirects to its not_found_redirect',
      async (path) => {
        const res = await t.http.get(`/${path}`).set('Host', hostname).expect(302);
        expect(res.headers.location).toBe(`https://${hostname}.example/404`);
      },
    );

    it('an API path with hostile bytes on the default domain is still the API, refusing them', async () => {
      const res = await t.http
        .get(`/stats/%FF/intervals.json?v=3&key=${valid.key}`)
        .set('Host', 'svc.test')
        .expect(400);
      expect(res.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter svc_id: is not valid UTF-8',
      });
    });
  });
});

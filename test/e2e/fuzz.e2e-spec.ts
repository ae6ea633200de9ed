import fc from 'fast-check';
import { TestApp, createTestApp } from '../support/app';
import { connectDomain, createProject } from '../factories/projects';
import { createLink } from '../factories/links';
import { OpenApiPaths, Operation, fuzzableOperations } from '../support/openapi-operations';

/**
 * A seeded property-based test (docs/api.md, "Errors") of the create, stats and admin endpoints: whatever the
 * parameters, no 5xx, an answer within the timeout, and every refusal names a parameter of the
 * request (a 400) in the endpoint's error shape. CI runs FUZZ_RUNS (default 1000) requests from FUZZ_SEED (default below); a larger run:
 * `FUZZ_RUNS=5000 FUZZ_SEED=$RANDOM npx jest test/e2e/fuzz.e2e-spec.ts` (a failure prints its
 * seed and the shrunk request).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const TIMEOUT_MS = 10_000;

interface FuzzRequest {
  operation: Operation;
  path: Record<string, string>;
  /** Pairs as they go on the wire, already percent-encoded (so invalid bytes can be sent). */
  pairs: [string, string][];
  json: boolean;
}

/** Percent-encodes bytes one by one, whatever they are. */
function encodeBytes(bytes: Uint8Array): string {
  return [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
}

/** A text's UTF-8, every byte percent-encoded (a lone surrogate becomes U+FFFD, as Node writes it). */
function encodeText(text: string): string {
  return encodeBytes(Buffer.from(text, 'utf8'));
}

describe(`fuzz: create, stats and admin endpoints (seed ${SEED}, ${RUNS} runs)`, () => {
  let t: TestApp;
  let operations: Operation[];
  let valid: Record<string, string[]>;
  const hostname = 'go.fuzz.example';

  beforeAll(async () => {
    t = await createTestApp({ env: { CREATE_RATE_LIMIT: '1000000' } });
    const project = await createProject(t, { conversions: { enabled: true, domains: 'all' } });
    await connectDomain(t, hostname, [project.api_key]);
    const link = await createLink(t, project.api_key, {
      campaign: 'spring',
      campaign_description: 'Spring',
    });
    valid = {
      v: ['3'],
      key: [project.api_key],
      tool: ['publisher-bar', 'x'],
      channel: ['twitter', 'email', 'facebook-share'],
      url: ['https://example.com/a', `http://svc.test/${link.path}`],
      campaign: ['spring'],
      start_date: ['2026-01-01', '1700000000', '2010-06-05T00:00:00Z'],
      end_date: ['2030-01-02', '2026-01-01'],
      group_by: ['channel', 'campaign', 'tag', 'svc_id', 'project'],
      pivot: ['tag', 'channel', 'user_id'],
      sort_type: ['clicks', 'shares', 'alpha', 'goal_1_count'],
      interval: ['hour', 'day', 'week'],
      svc_id: [link.svc_id],
      parent: [link.svc_id],
      subscription_key: [t.subscriptionKey],
      application_key: [t.applicationKey],
      api_key: [project.api_key],
      hostname: [hostname],
      format: ['json', 'txt'],
      with_conversions: ['true', 'false'],
      service_postid: ['twitter:1'],
      service_userid: ['twitter:2'],
    };
    const document = (await t.http.get('/docs-json').expect(200)).body as OpenApiPaths;
    // Create, stats and admin.
    operations = fuzzableOperations(document, /^\/(url|stats|projects|domains)/);
  });
  afterAll(() => t.close());

  /** A value: mostly plausible, often hostile (NUL, lone surrogates, invalid UTF-8), sometimes huge. */
  function value(name: string): fc.Arbitrary<string> {
    const plausible = valid[name] ?? ['x', 'twitter', '1', 'true'];
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...plausible).map(encodeURIComponent) },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(encodeText) },
      { weight: 2, arbitrary: fc.uint8Array({ maxLength: 12 }).map(encodeBytes) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('%00', '%FF', '%C3%28', '%ED%A0%80', '%', '%%', '%E0%A4%A', '+'),
      },
      { weight: 1, arbitrary: fc.integer().map(String) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('a'.repeat(5000), '-1', '1e309', 'null', '[]', '{}'),
      },
    );
  }

  /** The admin `json` parameter: JSON of plausible fields with fuzzed values, or any JSON, or not JSON. */
  const jsonText = fc.oneof(
    fc
      .dictionary(
        fc.constantFrom(
          'name',
          'domains',
          'default_domain',
          'admins',
          'sharers',
          'viewers',
          'remove_user',
          'change_role',
          'conversions',
          'hostname',
          'root_redirect',
          'not_found_redirect',
          'projects',
          'redirection_patterns',
          'utm_parameters',
        ),
        fc.jsonValue({ maxDepth: 2, stringUnit: 'binary' }),
        { maxKeys: 4 },
      )
      .map((o) => encodeText(JSON.stringify(o))),
    fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }).map((v) => encodeText(JSON.stringify(v))),
    fc.string({ unit: 'binary', maxLength: 30 }).map(encodeText),
  );

  function request(operation: Operation): fc.Arbitrary<FuzzRequest> {
    // Never empty: `/domains//update` is another address (no route), not this endpoint.
    const path = fc.record(
      Object.fromEntries(
        operation.pathNames.map((name) => [
          name,
          value(name).filter((v) => v !== '' && v !== '.' && v !== '..'),
        ]),
      ),
    );
    const names = [...operation.names, 'callback', 'unknown_parameter'];
    const pair = fc
      .constantFrom(...names)
      .chain((name) =>
        fc.tuple(
          fc.constantFrom(
            encodeURIComponent(name),
            `${encodeURIComponent(name)}[]`,
            `${encodeURIComponent(name)}[a]`,
          ),
          name === 'json' ? jsonText : value(name),
        ),
      );
    // The parameters an endpoint requires, usually valid, so that the fuzzing reaches its depth.
    const base = fc
      .constantFrom(true, true, false)
      .map((withBase): [string, string][] =>
        withBase
          ? [
              'v',
              'key',
              'tool',
              'channel',
              'url',
              'start_date',
              'end_date',
              'subscription_key',
              'application_key',
            ]
              .filter((name) => operation.names.includes(name))
              .map((name) => [name, encodeURIComponent(valid[name][0])])
          : [],
      );
    return fc.record({
      operation: fc.constant(operation),
      path,
      pairs: fc.tuple(base, fc.array(pair, { maxLength: 6 })).map(([b, p]) => [...b, ...p]),
      json: fc.boolean(),
    });
  }

  it('never answers 5xx, always answers in time, and names a parameter of every refused request', async () => {
    expect(operations.length).toBeGreaterThan(30);
    const arbitrary = fc.constantFrom(...operations).chain(request);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(arbitrary, async ({ operation, path, pairs, json }) => {
        const url = operation.template.replace(/\{(\w+)\}/g, (_, name: string) =>
          name === 'format' && !/^(json|txt)$/.test(path[name]) ? 'json' : path[name],
        );
        const data = pairs.map(([k, v]) => `${k}=${v}`).join('&');
        let req = operation.method === 'get' ? t.http.get(`${url}?${data}`) : t.http.post(url);
        if (operation.method === 'post') {
          if (json && /^\/(projects|domains)\//.test(operation.template)) {
            // A JSON body of the same pairs, decoded leniently (invalid bytes travel as U+FFFD).
            const body = Object.fromEntries(pairs.map(([k, v]) => [safeDecode(k), safeDecode(v)]));
            req = req.set('Content-Type', 'application/json').send(JSON.stringify(body));
          } else {
            req = req.set('Content-Type', 'application/x-www-form-urlencoded').send(data);
          }
        }
        const res = await req.timeout(TIMEOUT_MS);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const where = `${operation.method.toUpperCase()} ${url} ${data.slice(0, 300)}`;
        expect({
          where,
          status: res.status < 500 ? 'below 500' : res.status,
          body: res.status < 500 ? '' : res.text,
        }).toEqual({
          where,
          status: 'below 500',
          body: '',
        });
        if (res.status >= 400) {
          // Every error in the endpoint's shape (docs/api.md, "Errors"); txt answers the bare
          // message.
          const admin = /^\/(projects|domains)\//.test(operation.template);
          // JSON-P (callback): the same object inside `name(…);`.
          const jsonp =
            res.type === 'application/javascript' ? /^[\w$.]+\(([\s\S]*)\);$/.exec(res.text) : null;
          const body = (jsonp ? JSON.parse(jsonp[1]) : res.body) as {
            error_message?: unknown;
            error?: { code?: unknown; message?: unknown } | number;
            request?: unknown;
          };
          const message = admin
            ? typeof body.error === 'object' &&
              typeof body.error.code === 'number' &&
              typeof body.request === 'object'
              ? body.error.message
              : null
            : res.type === 'text/plain'
              ? res.text
              : body.error === res.status
                ? body.error_message
                : null;
          expect({ where, shape: typeof message }).toEqual({ where, shape: 'string' });
          if (res.status === 400) {
            // A refused request names the parameter at fault: one it gave, or one the endpoint
            // requires ("Missing required parameter: v").
            const names = [
              ...operation.pathNames,
              ...operation.names,
              ...pairs.map(([k]) => safeDecode(k).replace(/\[.*$/, '')),
            ];
            const named = names.some(
              (name) =>
                name !== '' &&
                new RegExp(`(^|[^\\w])${escapeRegExp(name)}([^\\w]|$)`).test(String(message)),
            );
            expect({ where, message, named }).toEqual({ where, message, named: true });
          }
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // Not vacuous: the runs reached the endpoints' work (200) as well as their refusals (400).
    expect((statuses.get(200) ?? 0) > 0 && (statuses.get(400) ?? 0) > 0).toBe(true);
  }, 600_000);
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

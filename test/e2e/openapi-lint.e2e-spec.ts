import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { lint, loadConfig } from '@redocly/openapi-core';
import type { OpenAPIObject, OperationObject, SchemaObject } from '@nestjs/swagger';
import { TestApp, createTestApp } from '../support/app';
import { installResponseValidation, serviceDocument } from '../support/openapi-validation';

installResponseValidation();

const root = path.join(__dirname, '..', '..');
const COMMITTED = path.join(root, 'openapi.json');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The problems Redocly finds in a document file under redocly.yaml, as `severity rule pointer`. */
async function problemsOf(file: string): Promise<string[]> {
  const config = await loadConfig({ configPath: path.join(root, 'redocly.yaml') });
  const problems = await lint({ ref: file, config });
  return problems.map(
    (problem) =>
      `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer ?? ''}: ${problem.message}`,
  );
}

/** `npm run lint:openapi` on a document file. */
function lintScript(file: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'scripts', 'lint-openapi.js'), file],
      { cwd: root },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    );
  });
}

function operations(document: OpenAPIObject): [string, OperationObject][] {
  return Object.entries(document.paths).flatMap(([route, item]) =>
    METHODS.flatMap((method) => {
      const operation: OperationObject | undefined = item[method];
      return operation ? [[`${method.toUpperCase()} ${route}`, operation]] : [];
    }),
  ) as [string, OperationObject][];
}

const PROJECT = [{ projectKey: [] }];
const ADMIN = [{ subscriptionKey: [], applicationKey: [] }];
// application_key is checked when given on project new and update (docs/api.md, "Administration").
const ADMIN_APPLICATION_OPTIONAL = [...ADMIN, { subscriptionKey: [] }];

/** The keys each operation takes, by docs/api.md: a new operation must find its row here. */
function expectedSecurity(operation: string): unknown {
  if (/^POST \/projects\/(new|\{api_key\}\/update)$/.test(operation)) {
    return ADMIN_APPLICATION_OPTIONAL;
  }
  if (/^\w+ \/(projects|domains|webhooks)\//.test(operation)) return ADMIN;
  if (/^\w+ \/(url|stats|conversions|events|export)[/.]/.test(operation)) return PROJECT;
  if (/^GET \/(svc\.js|metrics|health|health\/ready)$/.test(operation)) return [];
  return `no row for ${operation}`;
}

/**
 * The keys in the OpenAPI document (docs/api.md, "Swagger console"): the document used to declare
 * no security scheme, so Swagger UI had no Authorize button and asked for the key as a required
 * parameter on every operation, and Redocly's recommended rules reported 50 errors (46 operations
 * without security, 4 `nullable` without a `type`).
 */
describe('the OpenAPI document declares its keys and passes the OpenAPI lint', () => {
  let document: OpenAPIObject;
  let dir: string;

  beforeAll(async () => {
    document = await serviceDocument();
    dir = mkdtempSync(path.join(tmpdir(), 'svc-openapi-lint-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has no error under redocly.yaml in the committed openapi.json', async () => {
    const errors = (await problemsOf(COMMITTED)).filter((problem) => problem.startsWith('error'));
    expect(errors).toEqual([]);
  });

  it('has no error in the document the code builds either', async () => {
    const file = path.join(dir, 'built.json');
    writeFileSync(file, JSON.stringify(document));
    const errors = (await problemsOf(file)).filter((problem) => problem.startsWith('error'));
    expect(errors).toEqual([]);
  });

  it('reports an operation without security and a nullable without type, and the script fails', async () => {
    const broken = JSON.parse(readFileSync(COMMITTED, 'utf8')) as OpenAPIObject;
    delete broken.paths['/url/list.{format}'].get?.security;
    const aggregate = broken.components?.schemas?.AggregateResponseDto as SchemaObject;
    aggregate.properties = {
      ...aggregate.properties,
      sort_order: { nullable: true, allOf: [{ $ref: '#/components/schemas/SortType' }] },
    };
    const file = path.join(dir, 'broken.json');
    writeFileSync(file, JSON.stringify(broken, null, 2));

    const errors = (await problemsOf(file)).filter((problem) => problem.startsWith('error'));
    expect(errors.sort()).toEqual([
      'error security-defined #/paths/~1url~1list.{format}/get: Every operation should have security defined on it or on the root level.',
      'error struct #/components/schemas/AggregateResponseDto/properties/sort_order/nullable: The `type` field must be defined when the `nullable` field is used.',
    ]);
    const result = await lintScript(file);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\nlint:openapi: .*broken\.json: 2 errors, \d+ warnings\n$/);
  }, 60_000);

  it('declares key, subscription_key and application_key as apiKey schemes in the query string', () => {
    expect(
      Object.fromEntries(
        Object.entries(document.components?.securitySchemes ?? {}).map(([name, scheme]) => [
          name,
          '$ref' in scheme ? scheme : { type: scheme.type, in: scheme.in, name: scheme.name },
        ]),
      ),
    ).toEqual({
      projectKey: { type: 'apiKey', in: 'query', name: 'key' },
      subscriptionKey: { type: 'apiKey', in: 'query', name: 'subscription_key' },
      applicationKey: { type: 'apiKey', in: 'query', name: 'application_key' },
    });
  });

  it('says on each operation which keys it takes', () => {
    const all = operations(document);
    expect(all.length).toBeGreaterThanOrEqual(46);
    for (const [name, operation] of all) {
      expect({ [name]: operation.security }).toEqual({ [name]: expectedSecurity(name) });
    }
  });

  it('asks for no key as a required parameter or body field once Authorize supplies it', () => {
    const names: Record<string, string> = {
      projectKey: 'key',
      subscriptionKey: 'subscription_key',
      applicationKey: 'application_key',
    };
    const required: string[] = [];
    for (const [name, operation] of operations(document)) {
      const keys = new Set(
        (operation.security ?? []).flatMap((requirement) =>
          Object.keys(requirement).map((scheme) => names[scheme]),
        ),
      );
      for (const parameter of operation.parameters ?? []) {
        if (!('$ref' in parameter) && keys.has(parameter.name) && parameter.required) {
          required.push(`${name} parameter ${parameter.name}`);
        }
      }
      const body = operation.requestBody;
      const media = body && !('$ref' in body) ? Object.values(body.content) : [];
      for (const { schema } of media) {
        const target =
          schema && '$ref' in schema
            ? document.components?.schemas?.[schema.$ref.split('/').pop() ?? '']
            : schema;
        for (const field of target && !('$ref' in target) ? (target.required ?? []) : []) {
          if (keys.has(field)) required.push(`${name} body ${field}`);
        }
      }
    }
    expect(required).toEqual([]);
  });

  describe('served', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp();
    });

    afterAll(async () => {
      await t.close();
    });

    it('keeps the authorisation of Swagger UI across reloads', async () => {
      const res = await t.http.get('/docs/swagger-ui-init.js').expect(200);
      expect(res.text).toContain('"persistAuthorization": true');
      const served = await t.http.get('/docs-json').expect(200);
      expect((served.body as OpenAPIObject).components?.securitySchemes).toEqual(
        document.components?.securitySchemes,
      );
    });

    it('answers an administration GET whose keys come only as Authorize sends them', async () => {
      const res = await t.http
        .get('/projects/list')
        .query({ subscription_key: t.subscriptionKey, application_key: t.applicationKey })
        .expect(200);
      expect(res.body).toEqual({
        request: {
          subscription_key: t.subscriptionKey,
          application_key: t.applicationKey,
          method: 'list',
          object: 'project',
        },
        response: { projects: [] },
      });
    });
  });
});

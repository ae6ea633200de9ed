import * as http from 'node:http';
import type { SchemaObject } from '@nestjs/swagger';
import request from 'supertest';
import { createProject } from '../factories/projects';
import { TestApp, createTestApp } from '../support/app';
import {
  OpenApiMismatchError,
  ResponseValidator,
  serviceValidator,
} from '../support/openapi-validation';

/**
 * test/support/app.ts checks every answer the suite receives against the OpenAPI document
 * (test/support/openapi-validation.ts). Here the check itself: it passes what the service answers,
 * and a request whose answer breaks the document fails with the path, the status and the reason.
 */
describe('answers are checked against the OpenAPI document', () => {
  let t: TestApp;
  let key: string;
  let validator: ResponseValidator;

  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t)).api_key;
    validator = await serviceValidator();
  });
  afterAll(() => t.close());

  const range = (query: Record<string, string>) =>
    t.http
      .get('/stats/range.json')
      .query({ v: '3', key, start_date: '2026-11-01', end_date: '2026-11-08', ...query });

  it('takes page: null (offset given) as the document now states, which its former schema refused', async () => {
    const res = await range({ offset: '0' }).expect(200);
    expect(res.body.page).toBeNull();
    const answer = {
      method: 'GET',
      url: '/stats/range.json?offset=0',
      status: 200,
      contentType: res.headers['content-type'],
      body: res.body,
    };
    expect(validator.check(answer)).toBeNull();

    const former = structuredClone(validator.document);
    const aggregate = former.components!.schemas!.AggregateResponseDto as SchemaObject;
    aggregate.properties!.page = { type: 'integer' };
    const problem = new ResponseValidator(former).check(answer);
    expect(problem).toContain(
      "GET /stats/range.json answered 200 (the document's GET /stats/range.json, response 200): the body does not match the document's schema: /page must be integer",
    );
  });

  describe('a request whose answer breaks the document fails', () => {
    let status = 200;
    let body: unknown;
    // A stand-in for the service that answers whatever the test sets, on the service's paths.
    const server = http.createServer((_req, res) => {
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    });
    const answer = (answerStatus: number, answerBody: unknown) => {
      status = answerStatus;
      body = answerBody;
    };
    let valid: Record<string, unknown>;

    beforeAll(async () => {
      valid = (await range({ per_page: '5' }).expect(200)).body;
    });

    it('passes an answer the document allows', async () => {
      answer(200, valid);
      await request(server).get('/stats/totals.json').expect(200);
      answer(403, { error: 403, error_message: 'Invalid API key specified' });
      await request(server).post('/stats/range.json').expect(403);
      answer(404, {
        request: { apikey: 'x', method: 'show', object: 'project' },
        error: { code: 1003, message: 'Project not found' },
      });
      await request(server).post('/projects/x/show').expect(404);
    });

    it('names the path, the status and a member of the wrong type', async () => {
      answer(200, { ...valid, per_page: 'five' });
      const failure = request(server).get('/stats/totals.json').query({ key }).expect(200);
      await expect(failure).rejects.toThrow(OpenApiMismatchError);
      await expect(
        request(server).get('/stats/totals.json').query({ key }).expect(200),
      ).rejects.toThrow(
        "GET /stats/totals.json answered 200 (the document's GET /stats/totals.json, response 200): the body does not match the document's schema: /per_page must be integer",
      );
    });

    it('reports a member the document does not name, and a missing one', async () => {
      answer(200, { ...valid, bonus: 1 });
      await expect(request(server).get('/stats/range.json')).rejects.toThrow(
        '(body) must NOT have additional properties (bonus: not in the document)',
      );
      const { totals: _totals, ...withoutTotals } = valid;
      answer(200, withoutTotals);
      await expect(request(server).post('/stats/range.json')).rejects.toThrow(
        "(body) must have required property 'totals'",
      );
    });

    it('checks error answers against the shape of their path, declared or default', async () => {
      // The admin shape where the link shape belongs, on a declared 400 and on an undeclared 429.
      const adminShape = { request: {}, error: { code: 1002, message: 'Invalid parameter' } };
      answer(400, adminShape);
      await expect(request(server).get('/url.json').expect(400)).rejects.toThrow(
        "GET /url.json answered 400 (the document's GET /url.{format}, response 400): the body does not match the document's schema: (body) must have required property 'error_message'",
      );
      answer(429, adminShape);
      await expect(request(server).post('/url/batch.json')).rejects.toThrow(
        "POST /url/batch.json answered 429 (the document's POST /url/batch.{format}, response default)",
      );
      answer(403, { error: 403, error_message: 'Invalid API key specified' });
      await expect(request(server).post('/domains/list')).rejects.toThrow(
        "POST /domains/list answered 403 (the document's POST /domains/list, response 403): the body does not match the document's schema: (body) must have required property 'request'",
      );
    });

    it('refuses a JSON body where the document declares none', async () => {
      answer(200, { status: 'ok' });
      await request(server).get('/health').expect(200);
      answer(302, { moved: true });
      await expect(request(server).get('/url/share')).rejects.toThrow(
        "GET /url/share answered 302 (the document's GET /url/share, response 302): a JSON body where the document declares no body",
      );
    });
  });
});

import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import request from 'supertest';
import { AppModule } from '../../src/app.module';
import { buildOpenApiDocument } from '../../src/openapi-document';
import { loadConfig } from '../../src/config/app-config';

/** One answer as a client received it. */
export interface ReceivedResponse {
  method: string;
  /** The request URL, absolute or a path (the query is ignored). */
  url: string;
  status: number;
  /** The Content-Type header, if any. */
  contentType?: string;
  /** The parsed JSON body. */
  body: unknown;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Where the document's components are registered in ajv; references are rewritten to it. */
const DOCUMENT_ID = 'svc-openapi';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * An OpenAPI 3.0 schema as JSON Schema for ajv: `nullable` becomes a null type (ajv's own `nullable`
 * refuses schemas without `type`, such as a nullable `allOf` reference), boolean exclusive bounds
 * become numeric ones and references point into the document registered under DOCUMENT_ID.
 *
 * With `closed`, an object schema that lists its properties and says nothing of others admits no
 * others: a member the service answers but the document never names is reported too. (Nest writes
 * a subclass's properties out in full, never as allOf branches that closing would break.)
 */
export function toJsonSchema(schema: Json, options: { closed: boolean }): Json {
  if (Array.isArray(schema)) return schema.map((item) => toJsonSchema(item, options));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'example' || key === 'examples' || key === 'xml') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) {
      out.$ref = `${DOCUMENT_ID}${value}`;
    } else if (
      key === 'properties' &&
      value &&
      typeof value === 'object' &&
      !Array.isArray(value)
    ) {
      // Property names are data, not keywords: only their schemas are converted.
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [name, toJsonSchema(property, options)]),
      );
    } else {
      out[key] = toJsonSchema(value, options);
    }
  }
  for (const bound of ['minimum', 'maximum'] as const) {
    const exclusive = bound === 'minimum' ? 'exclusiveMinimum' : 'exclusiveMaximum';
    if (out[exclusive] === true) {
      out[exclusive] = out[bound];
      delete out[bound];
    } else if (out[exclusive] === false) {
      delete out[exclusive];
    }
  }
  if (options.closed && out.properties !== undefined && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  if (schema.nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [{ type: 'null' }, out] };
}

interface DeclaredResponse {
  content?: Record<string, { schema?: Json }>;
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** Path parameters: of two templates matching a path, the one with fewer is the route. */
  parameters: number;
  responses: Record<string, DeclaredResponse>;
}

function isJson(contentType: string | undefined): boolean {
  return /^application\/([\w.+-]+\+)?json\b/i.test(contentType ?? '');
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((error) => {
      const where = error.instancePath || '(body)';
      const params = error.params as { additionalProperty?: string; allowedValues?: unknown };
      const detail =
        error.keyword === 'additionalProperties'
          ? ` (${params.additionalProperty}: not in the document)`
          : error.keyword === 'enum'
            ? ` (${JSON.stringify(params.allowedValues)})`
            : '';
      return `${where} ${error.message ?? error.keyword}${detail} [schema ${error.schemaPath}]`;
    })
    .join('; ');
}

function excerpt(body: unknown): string {
  const text = JSON.stringify(body) ?? String(body);
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

/**
 * Checks answers against the responses an OpenAPI document declares for their path, method and
 * status. Only JSON answers are checked: the text and JSON-P forms a request asks for (format=txt,
 * callback=…) and redirects are left to the API reference (declaring them would turn each generated
 * client's result into a union with a string), and paths and statuses the document does not list
 * are not checked.
 */
export class ResponseValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenAPIObject) {
    addFormats(this.ajv);
    const schemas = (document.components?.schemas ?? {}) as Json;
    this.ajv.addSchema(
      { components: { schemas: toJsonSchema(schemas, { closed: true }) } },
      DOCUMENT_ID,
    );
    for (const [template, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = (item as Record<string, { responses?: Operation['responses'] }>)[method];
        if (!operation) continue;
        let parameters = 0;
        const source = template
          .split(/(\{[^}]+\})/)
          .map((part) => {
            if (!/^\{[^}]+\}$/.test(part)) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
            parameters += 1;
            return '[^/]+';
          })
          .join('');
        this.operations.push({
          method,
          template,
          // Express routes match regardless of case and with or without a trailing slash.
          pattern: new RegExp(`^${source}/?$`, 'i'),
          parameters,
          responses: operation.responses ?? {},
        });
      }
    }
    this.operations.sort((a, b) => a.parameters - b.parameters);
  }

  /** Why the answer disagrees with the document, or null when it agrees (or is not checked). */
  check(response: ReceivedResponse): string | null {
    if (!isJson(response.contentType) || response.method.toUpperCase() === 'HEAD') return null;
    const path = new URL(response.url, 'http://localhost').pathname;
    const method = response.method.toLowerCase();
    const operation = this.operations.find((op) => op.method === method && op.pattern.test(path));
    if (!operation) return null;
    const status = String(response.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => operation.responses[k]);
    if (!key) return null;
    const where = `${method.toUpperCase()} ${path} answered ${status} (the document's ${method.toUpperCase()} ${operation.template}, response ${key})`;
    const content = operation.responses[key].content ?? {};
    const mediaType = Object.keys(content).find(isJson);
    if (!mediaType) {
      const declared = Object.keys(content).join(', ') || 'no body';
      return `${where}: a JSON body where the document declares ${declared}; body: ${excerpt(response.body)}`;
    }
    const schema = content[mediaType].schema;
    if (schema === undefined) {
      return `${where}: the document declares JSON without a schema; body: ${excerpt(response.body)}`;
    }
    const id = `${method} ${operation.template} ${key} ${mediaType}`;
    let validate = this.compiled.get(id);
    if (!validate) {
      validate = this.ajv.compile(toJsonSchema(schema, { closed: true }) as object);
      this.compiled.set(id, validate);
    }
    if (validate(response.body)) return null;
    return `${where}: the body does not match the document's schema: ${describeErrors(validate.errors)}; body: ${excerpt(response.body)}`;
  }
}

/** The document the service serves at /docs-json, built from the code under test. */
export async function serviceDocument(): Promise<OpenAPIObject> {
  const config = loadConfig({ DEFAULT_DOMAIN: 'svc.test', LOG_LEVEL: 'silent' });
  // Preview mode builds the module graph without instantiating providers: nothing is opened.
  const app = await NestFactory.create(AppModule.forRoot(config), { preview: true, logger: false });
  try {
    return buildOpenApiDocument(app, config);
  } finally {
    await app.close();
  }
}

let shared: Promise<ResponseValidator> | undefined;

/** The validator of this test file's answers (the document is built once per file, on first use). */
export function serviceValidator(): Promise<ResponseValidator> {
  shared ??= serviceDocument().then((document) => new ResponseValidator(document));
  return shared;
}

/** The error of a request whose answer disagrees with the OpenAPI document. */
export class OpenApiMismatchError extends Error {
  override name = 'OpenApiMismatchError';
}

type Test = InstanceType<typeof request.Test>;
type AssertCallback = (this: Test, error: Error | null, res?: unknown) => void;
interface TestInternals {
  /** The server or base URL the request was sent to. */
  app: unknown;
  method: string;
  url: string;
  assert(resError: Error | null, res: unknown, fn?: AssertCallback): void;
}
interface ReceivedByAgent {
  status: number;
  text?: string;
  headers: Record<string, string | undefined>;
  body: unknown;
}

const INSTALLED = Symbol.for('svc.openapi-validation');
const uncheckedServers = new WeakSet<object>();
const uncheckedOrigins = new Set<string>();

/**
 * The answers of a process that serves neither the API nor its document (ROLE=worker, whose
 * /docs-json answers 404 too) are not checked: a server as given to supertest, or its URL.
 */
export function leaveUnchecked(target: object | string): void {
  if (typeof target === 'string') uncheckedOrigins.add(new URL(target).origin);
  else uncheckedServers.add(target);
}

function isUnchecked(target: unknown): boolean {
  if (typeof target === 'string') return uncheckedOrigins.has(new URL(target).origin);
  return typeof target === 'object' && target !== null && uncheckedServers.has(target);
}

/**
 * Every answer a supertest request of this test file receives (whatever agent or server sent it)
 * is checked against the service's OpenAPI document after the request's own expectations: a
 * disagreement rejects the request, and so fails the test awaiting it, naming the path, the status
 * and the schema's complaint.
 */
export function installResponseValidation(): void {
  const prototype = request.Test.prototype as unknown as TestInternals & { [INSTALLED]?: true };
  if (prototype[INSTALLED]) return;
  prototype[INSTALLED] = true;
  const assert = prototype.assert;
  prototype.assert = function (this: Test & TestInternals, resError, res, fn) {
    assert.call(this, resError, res, (error, response) => {
      if (!fn) return;
      const received = response as ReceivedByAgent | undefined;
      if (
        error ||
        !received ||
        !isJson(received.headers['content-type']) ||
        !received.text ||
        isUnchecked(this.app)
      ) {
        return fn.call(this, error, response);
      }
      serviceValidator().then(
        (validator) => {
          const problem = validator.check({
            method: this.method,
            url: this.url,
            status: received.status,
            contentType: received.headers['content-type'],
            body: received.body,
          });
          fn.call(this, problem ? new OpenApiMismatchError(problem) : null, response);
        },
        (failure: Error) => fn.call(this, failure, response),
      );
    });
  };
}

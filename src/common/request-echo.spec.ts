import type { Request } from 'express';
import { adminResponse, requestEcho, usesAdminShape } from './request-echo';

function req(path: string, query: Record<string, unknown> = {}, body?: unknown): Request {
  return { path, query, body } as unknown as Request;
}

describe('requestEcho', () => {
  it('echoes a project creation with its parameters as strings', () => {
    const echo = requestEcho(
      req(
        '/projects/new',
        { subscription_key: 's' },
        { name: 'Acme', conversions: true, users: 2 },
      ),
    );
    expect(echo).toEqual({
      subscription_key: 's',
      name: 'Acme',
      conversions: 'true',
      users: '2',
      method: 'new',
      object: 'project',
    });
  });

  it('names the project by its API key on /projects/{apikey}/{action}', () => {
    expect(requestEcho(req('/projects/abc123/update'))).toEqual({
      apikey: 'abc123',
      method: 'update',
      object: 'project',
    });
    expect(requestEcho(req('/projects/abc123/show'))).toEqual({
      apikey: 'abc123',
      method: 'show',
      object: 'project',
    });
  });

  it('maps destroy to delete and keeps unknown actions as they are', () => {
    expect(requestEcho(req('/projects/k/destroy'))).toEqual({
      apikey: 'k',
      method: 'delete',
      object: 'project',
    });
    expect(requestEcho(req('/projects/k/frobnicate'))).toEqual({
      apikey: 'k',
      method: 'frobnicate',
      object: 'project',
    });
    expect(requestEcho(req('/projects/list'))).toEqual({ method: 'list', object: 'project' });
  });

  it('names the domain by its decoded hostname on /domains/{hostname}/{action}', () => {
    expect(requestEcho(req('/domains/go.example.com/show'))).toEqual({
      hostname: 'go.example.com',
      method: 'show',
      object: 'domain',
    });
    expect(requestEcho(req('/domains/caf%C3%A9.example/update'))).toEqual({
      hostname: 'café.example',
      method: 'update',
      object: 'domain',
    });
    expect(requestEcho(req('/domains/bad%E0%A4%A/update'))).toEqual({
      hostname: 'bad%E0%A4%A',
      method: 'update',
      object: 'domain',
    });
  });

  it('lets the path win over parameters of the same name', () => {
    expect(
      requestEcho(
        req('/projects/fromPath/show', { apikey: 'fromQuery', method: 'x', object: 'y' }),
      ),
    ).toEqual({
      apikey: 'fromPath',
      method: 'show',
      object: 'project',
    });
  });

  it('serialises arrays element by element and objects as JSON', () => {
    expect(
      requestEcho(
        req('/projects/new', { tags: ['a', 1] }, { settings: { utm: true }, empty: null }),
      ),
    ).toEqual({
      tags: ['a', '1'],
      settings: '{"utm":true}',
      empty: null,
      method: 'new',
      object: 'project',
    });
  });

  it('ignores a body that is not an object', () => {
    expect(requestEcho(req('/projects/list', { a: '1' }, 'raw text'))).toEqual({
      a: '1',
      method: 'list',
      object: 'project',
    });
  });

  it('echoes conversions with their action', () => {
    expect(requestEcho(req('/conversions', { svc: 'x' }))).toEqual({
      svc: 'x',
      action: 'new',
      controller: 'conversion',
    });
    expect(requestEcho(req('/conversions/new', { value: 3 }))).toEqual({
      value: '3',
      action: 'new',
      controller: 'conversion',
    });
  });

  it('has no echo elsewhere', () => {
    expect(requestEcho(req('/url.json', { url: 'x' }))).toBeNull();
    expect(requestEcho(req('/'))).toBeNull();
    expect(requestEcho(req('/projectsX/new'))).toBeNull();
  });
});

describe('usesAdminShape', () => {
  it.each([
    ['/projects', true],
    ['/projects/new', true],
    ['/projects/k/show', true],
    ['/domains/x/show', true],
    ['/conversions', true],
    ['/conversions/new', true],
    ['/projectsx', false],
    ['/url.json', false],
    ['/stats/links.json', false],
    ['/health', false],
    ['/', false],
  ])('%s → %s', (path, expected) => {
    expect(usesAdminShape(req(path))).toBe(expected);
  });
});

describe('adminResponse', () => {
  it('wraps a response with the echo', () => {
    expect(adminResponse(req('/projects/list', { subscription_key: 's' }), [1])).toEqual({
      request: { subscription_key: 's', method: 'list', object: 'project' },
      response: [1],
    });
  });
});

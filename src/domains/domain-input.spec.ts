import { errorOf } from '../../test/support/app-errors';
import {
  CREATE_FIELDS,
  UPDATE_FIELDS,
  hostPart,
  normaliseHostname,
  parseDomainHostname,
  parseRedirect,
  rejectUnknownFields,
} from './domain-input';

describe.each([
  {
    name: 'normaliseHostname',
    of: normaliseHostname,
    cases: [
      ['Go.Example.COM', 'go.example.com'],
      [' go.example.com:8080 ', 'go.example.com:8080'],
      ['GO.example.com_Blog', 'go.example.com_Blog'],
    ],
  },
  {
    name: 'hostPart',
    of: hostPart,
    cases: [
      ['go.example.com', 'go.example.com'],
      ['go.example.com_blog', 'go.example.com'],
      ['go.example.com:8080_blog', 'go.example.com:8080'],
    ],
  },
])('$name', ({ of, cases }) => {
  it.each(cases)('%s → %s', (value, expected) => {
    expect(of(value)).toBe(expected);
  });
});

describe('parseDomainHostname', () => {
  it.each([
    ['go.example.com', 'go.example.com'],
    ['Go.Example.com', 'go.example.com'],
    ['localhost:8080', 'localhost:8080'],
    ['go.example.com_Seg-1', 'go.example.com_Seg-1'],
    ['svc.test.example.com', 'svc.test.example.com'],
  ])('accepts %s as %s', (value, expected) => {
    expect(parseDomainHostname(value, 'svc.test')).toBe(expected);
  });

  it.each([
    [undefined, 1001, 'Missing required parameter: json.hostname'],
    ['', 1001, 'Missing required parameter: json.hostname'],
    [['go.example.com'], 1002, 'Invalid parameter json.hostname: must be a string'],
    [
      'http://go.example.com',
      1002,
      'Invalid parameter json.hostname: "http://go.example.com" must be a hostname without a scheme (e.g. go.example.com)',
    ],
    [
      'go.example.com/seg',
      1002,
      'Invalid parameter json.hostname: "go.example.com/seg" must be a hostname without a path; write one extra path segment as hostname_segment',
    ],
    [
      '-go.example.com',
      1002,
      'Invalid parameter json.hostname: "-go.example.com" is not a valid hostname (hostname, optionally :port and one _segment of A-Z, a-z, 0-9 and -)',
    ],
    [
      'go.example.com:0',
      1002,
      'Invalid parameter json.hostname: "go.example.com:0" has a port outside 1 to 65535',
    ],
    [
      'svc.test',
      1002,
      'Invalid parameter json.hostname: svc.test is the shared default domain and cannot be connected',
    ],
    [
      'svc.test:81',
      1002,
      'Invalid parameter json.hostname: svc.test is the shared default domain and cannot be connected',
    ],
  ])('refuses %j', (value, code, message) => {
    expect(errorOf(() => parseDomainHostname(value, 'svc.test'))).toEqual({
      status: 400,
      code,
      message,
    });
  });

  it('refuses the default domain given with or without its port', () => {
    const message =
      'Invalid parameter json.hostname: localhost:3000 is the shared default domain and cannot be connected';
    expect(errorOf(() => parseDomainHostname('localhost:3000', 'localhost:3000')).message).toBe(
      message,
    );
    expect(errorOf(() => parseDomainHostname('localhost', 'localhost:3000')).message).toBe(message);
  });
});

describe('parseRedirect', () => {
  it('accepts absolute http(s) URLs', () => {
    expect(parseRedirect('https://example.com/a?b=1', 'json.root_redirect')).toBe(
      'https://example.com/a?b=1',
    );
    expect(parseRedirect('http://example.com', 'json.root_redirect')).toBe('http://example.com');
  });

  it.each([
    [undefined, true, 1001, 'Missing required parameter: json.root_redirect'],
    [
      undefined,
      false,
      1002,
      'Invalid parameter json.root_redirect: must be an absolute http(s) URL',
    ],
    [null, false, 1002, 'Invalid parameter json.root_redirect: must be an absolute http(s) URL'],
    [
      'javascript:alert(1)',
      true,
      1002,
      'Invalid parameter json.root_redirect: must be an absolute http(s) URL',
    ],
    [
      '//example.com/',
      true,
      1002,
      'Invalid parameter json.root_redirect: must be an absolute http(s) URL',
    ],
  ])('refuses %j (required %s)', (value, required, code, message) => {
    expect(errorOf(() => parseRedirect(value, 'json.root_redirect', required))).toEqual({
      status: 400,
      code,
      message,
    });
  });
});

describe('rejectUnknownFields', () => {
  it('accepts known fields', () => {
    expect(() =>
      rejectUnknownFields(
        { hostname: 'x', projects: [] },
        CREATE_FIELDS,
        'the domain creation object',
      ),
    ).not.toThrow();
  });

  it('names one unknown field by its path, several in a list', () => {
    expect(
      errorOf(() => rejectUnknownFields({ a: 1 }, UPDATE_FIELDS, 'the domain update object'))
        .message,
    ).toBe(
      'Invalid parameter json.a: not a field of the domain update object (allowed: root_redirect, not_found_redirect, projects, remove_projects)',
    );
    expect(
      errorOf(() => rejectUnknownFields({ a: 1, b: 2 }, UPDATE_FIELDS, 'the domain update object'))
        .message,
    ).toBe(
      'Invalid parameter json: unknown fields a, b in the domain update object (allowed: root_redirect, not_found_redirect, projects, remove_projects)',
    );
  });

  it('explains that a domain cannot be renamed', () => {
    expect(
      errorOf(() =>
        rejectUnknownFields({ hostname: 'x' }, UPDATE_FIELDS, 'the domain update object'),
      ).message,
    ).toBe(
      'Invalid parameter json.hostname: a domain cannot be renamed; destroy it and connect the new hostname',
    );
  });
});

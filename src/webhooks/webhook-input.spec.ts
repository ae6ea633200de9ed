import { errorOf } from '../../test/support/app-errors';
import {
  CREATE_FIELDS,
  UPDATE_FIELDS,
  isWebhookId,
  parseBoolean,
  parseDescription,
  parseEvents,
  parseLinks,
  parseProjectKey,
  parseUrlText,
  rejectUnknownFields,
} from './webhook-input';

const invalid = (message: string) => ({ status: 400, code: 1002, message });
const missing = (parameter: string) => ({
  status: 400,
  code: 1001,
  message: `Missing required parameter: ${parameter}`,
});

describe('isWebhookId', () => {
  it('takes a uuid in either case, nothing else', () => {
    expect(isWebhookId('0b8e6a52-3c1f-4d7e-9a25-6f4c8d1e2b37')).toBe(true);
    expect(isWebhookId('0B8E6A52-3C1F-4D7E-9A25-6F4C8D1E2B37')).toBe(true);
    expect(isWebhookId('0b8e6a52-3c1f-4d7e-9a25-6f4c8d1e2b3')).toBe(false);
    expect(isWebhookId("0b8e6a52-3c1f-4d7e-9a25-6f4c8d1e2b37' OR 1=1")).toBe(false);
    expect(isWebhookId('list')).toBe(false);
  });
});

describe('rejectUnknownFields', () => {
  it('accepts the known fields', () => {
    expect(() =>
      rejectUnknownFields(
        { project: 'k', url: 'u', events: [], description: null, links: null, pageviews: true },
        CREATE_FIELDS,
        'the webhook creation object',
      ),
    ).not.toThrow();
  });

  it('names an unknown field', () => {
    expect(
      errorOf(() =>
        rejectUnknownFields({ colour: 'blue' }, UPDATE_FIELDS, 'the webhook update object'),
      ),
    ).toEqual(
      invalid(
        'Invalid parameter json.colour: not a field of the webhook update object (allowed: url, events, description, links, pageviews, enabled)',
      ),
    );
  });

  it('explains that a webhook stays in its project', () => {
    expect(
      errorOf(() =>
        rejectUnknownFields({ project: 'k' }, UPDATE_FIELDS, 'the webhook update object'),
      ),
    ).toEqual(
      invalid(
        'Invalid parameter json.project: a webhook cannot move to another project; destroy it and create one in the other project',
      ),
    );
  });
});

describe('parseProjectKey and parseUrlText', () => {
  it('take a string, trimmed', () => {
    expect(parseProjectKey(' abc ')).toBe('abc');
    expect(parseUrlText(' https://hooks.example.com/x ')).toBe('https://hooks.example.com/x');
  });

  it.each([undefined, null, ''])('refuses %j as missing', (value) => {
    expect(errorOf(() => parseProjectKey(value))).toEqual(missing('json.project'));
    expect(errorOf(() => parseUrlText(value))).toEqual(missing('json.url'));
  });

  it('refuses a value that is not a string', () => {
    expect(errorOf(() => parseProjectKey(['k']))).toEqual(
      invalid('Invalid parameter json.project: must be a string'),
    );
    expect(errorOf(() => parseUrlText(42))).toEqual(
      invalid('Invalid parameter json.url: must be a string'),
    );
  });
});

describe('parseEvents', () => {
  it('takes the event types in the order given; a single string as one', () => {
    expect(parseEvents(['conversion.created', 'link.clicked'])).toEqual([
      'conversion.created',
      'link.clicked',
    ]);
    expect(parseEvents('link.updated')).toEqual(['link.updated']);
  });

  it.each([
    [undefined, missing('json.events')],
    [null, missing('json.events')],
    [
      [],
      invalid(
        'Invalid parameter json.events: must name at least one of link.created, link.updated, link.clicked, conversion.created',
      ),
    ],
    [
      ['link.clicked', 'ping'],
      invalid(
        'Invalid parameter json.events[1]: "ping" is not an event type (one of link.created, link.updated, link.clicked, conversion.created)',
      ),
    ],
    [
      ['link.clicked', 'link.created', 'link.clicked'],
      invalid('Invalid parameter json.events[2]: "link.clicked" is listed twice'),
    ],
    [[7], invalid('Invalid parameter json.events[0]: must be a non-empty string')],
  ])('refuses %j', (value, expected) => {
    expect(errorOf(() => parseEvents(value))).toEqual(expected);
  });
});

describe('parseDescription', () => {
  it('takes up to 500 characters; null or empty for none', () => {
    expect(parseDescription('CRM')).toBe('CRM');
    expect(parseDescription('x'.repeat(500))).toBe('x'.repeat(500));
    expect(parseDescription(null)).toBeNull();
    expect(parseDescription('')).toBeNull();
    expect(parseDescription(undefined)).toBeNull();
  });

  it('refuses 501 characters and a non-string', () => {
    expect(errorOf(() => parseDescription('x'.repeat(501)))).toEqual(
      invalid('Invalid parameter json.description: must be at most 500 characters'),
    );
    expect(errorOf(() => parseDescription(3))).toEqual(
      invalid('Invalid parameter json.description: must be a string'),
    );
  });
});

describe('parseLinks', () => {
  it('takes svc_ids, a single string as one; null or absent for every link', () => {
    expect(parseLinks(['svc.test_a', 'svc.test_b'])).toEqual(['svc.test_a', 'svc.test_b']);
    expect(parseLinks('svc.test_a')).toEqual(['svc.test_a']);
    expect(parseLinks(null)).toBeNull();
    expect(parseLinks(undefined)).toBeNull();
  });

  it('takes 1,000 links, not 1,001', () => {
    const ids = Array.from({ length: 1001 }, (_, i) => `svc.test_${i}`);
    expect(parseLinks(ids.slice(0, 1000))).toHaveLength(1000);
    expect(errorOf(() => parseLinks(ids))).toEqual(
      invalid('Invalid parameter json.links: takes at most 1000 links'),
    );
  });

  it.each([
    [
      [],
      invalid(
        'Invalid parameter json.links: must name at least one svc_id, or be null for every link',
      ),
    ],
    [['a', 'b', 'a'], invalid('Invalid parameter json.links[2]: a is listed twice')],
    [['a', ''], invalid('Invalid parameter json.links[1]: must be a non-empty string')],
  ])('refuses %j', (value, expected) => {
    expect(errorOf(() => parseLinks(value))).toEqual(expected);
  });
});

describe('parseBoolean', () => {
  it('takes JSON booleans only', () => {
    expect(parseBoolean(true, 'json.enabled')).toBe(true);
    expect(parseBoolean(false, 'json.enabled')).toBe(false);
    expect(errorOf(() => parseBoolean('true', 'json.enabled'))).toEqual(
      invalid('Invalid parameter json.enabled: must be true or false'),
    );
  });
});

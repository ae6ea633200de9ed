import { QueryFailedError } from 'typeorm';
import { REDACTED, redactText, redactValue } from './redact';

const API_KEY = 'a1b2c3d4'.repeat(8);
const PK = 'pk_0123456789abcdef0123456789abcdef';

describe('redactText', () => {
  it('redacts every secret parameter of a query string or form body, and nothing else', () => {
    expect(
      redactText(
        `/url/new.json?v=3&key=${API_KEY}&api_key=k2&publishable_key=${PK}&subscription_key=s1&application_key=a1&password=open%20sesame&url=https://x.example/?a=1`,
      ),
    ).toBe(
      `/url/new.json?v=3&key=${REDACTED}&api_key=${REDACTED}&publishable_key=${REDACTED}&subscription_key=${REDACTED}&application_key=${REDACTED}&password=${REDACTED}&url=https://x.example/?a=1`,
    );
    expect(redactText('password=a%26b&tool=x')).toBe(`password=${REDACTED}&tool=x`);
    expect(redactText('KEY=abc APIKEY=def')).toBe(`KEY=${REDACTED} APIKEY=${REDACTED}`);
  });

  it("redacts the live feed's key and stream token in its URL, whatever their form", () => {
    expect(redactText('/events/stream?token=opaque-1&last_event_id=evt_1')).toBe(
      `/events/stream?token=${REDACTED}&last_event_id=evt_1`,
    );
    expect(redactText('GET /events/stream?key=short&token=stk_x&api_key=k')).toBe(
      `GET /events/stream?key=${REDACTED}&token=${REDACTED}&api_key=${REDACTED}`,
    );
    expect(redactText('next=%2Fevents%2Fstream%3Ftoken%3Dabc%26x%3D1')).toBe(
      `next=%2Fevents%2Fstream%3Ftoken%3D${REDACTED}%26x%3D1`,
    );
    expect(redactValue({ token: 'abc', tokens: 2 })).toEqual({ token: REDACTED, tokens: 2 });
    const text = 'tokens=1&token_type=bearer&csrf_token=x';
    expect(redactText(text)).toBe(text);
  });

  it('redacts bracketed and percent-encoded names, and keys inside an encoded URL', () => {
    expect(redactText('key[]=a&key[0]=b&key%5B%5D=c')).toBe(
      `key[]=${REDACTED}&key[0]=${REDACTED}&key%5B%5D=${REDACTED}`,
    );
    expect(redactText('url=https%3A%2F%2Fx.example%2F%3Fkey%3Dsecret1%26a%3D1')).toBe(
      `url=https%3A%2F%2Fx.example%2F%3Fkey%3D${REDACTED}%26a%3D1`,
    );
  });

  it('leaves names that merely end in a secret name alone', () => {
    const text = 'monkey=1&keyword=2&password_protected=true&sort_key=x';
    expect(redactText(text)).toBe(text);
  });

  it('redacts JSON members, also in a string that quotes JSON, and inspected objects', () => {
    expect(redactText(`{"password":"a \\"quoted\\" b","key":123,"url":"https://x.example/"}`)).toBe(
      `{"password":"${REDACTED}","key":"${REDACTED}","url":"https://x.example/"}`,
    );
    expect(redactText(`body {\\"api_key\\":\\"k1\\",\\"n\\":1}`)).toBe(
      `body {\\"api_key\\":\\"${REDACTED}\\",\\"n\\":1}`,
    );
    expect(redactText(`{ subscription_key: 's1', name: 'x' }`)).toBe(
      `{ subscription_key: '${REDACTED}', name: 'x' }`,
    );
  });

  it('redacts the project segment of administration paths, but not new and list', () => {
    expect(redactText('/projects/not-a-real-key/show')).toBe(`/projects/${REDACTED}/show`);
    expect(redactText('POST /projects/xyz/update?x=1')).toBe(
      `POST /projects/${REDACTED}/update?x=1`,
    );
    expect(redactText('/projects/new /projects/list?x=1 /projects/List')).toBe(
      '/projects/new /projects/list?x=1 /projects/List',
    );
    expect(redactText('/projects/newer')).toBe(`/projects/${REDACTED}`);
    const stack =
      'at show (/app/src/projects/projects.service.ts:12:5) (/app/dist/projects/a.js:1)';
    expect(redactText(stack)).toBe(stack);
  });

  it('redacts API keys and publishable keys wherever they stand, and PostgreSQL details', () => {
    expect(redactText(`/stats/${API_KEY}/x ${PK}.`)).toBe(`/stats/${REDACTED}/x ${REDACTED}.`);
    expect(redactText(`Key (api_key)=(abc) already exists.`)).toBe(
      `Key (api_key)=(${REDACTED}) already exists.`,
    );
    // Not 64 hex characters on their own.
    const longer = `${API_KEY}0`;
    expect(redactText(longer)).toBe(longer);
  });

  it('runs in linear time on hostile text', () => {
    const hostile = `${'key[a]'.repeat(20_000)}${'"password":"\\'.repeat(20_000)}${'/projects/'.repeat(20_000)}`;
    const started = performance.now();
    redactText(hostile);
    // Linear work takes milliseconds here; the budget leaves room for a busy machine, not for
    // work that grows with the square of the text.
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('redactValue', () => {
  it('redacts members named for a secret at any depth, and strings everywhere', () => {
    expect(
      redactValue({
        url: `/u?key=${API_KEY}`,
        body: { nested: [{ password: 'p', Subscription_Key: 's', name: `pk ${PK}` }] },
        count: 3,
        ok: true,
        none: null,
      }),
    ).toEqual({
      url: `/u?key=${REDACTED}`,
      body: {
        nested: [{ password: REDACTED, Subscription_Key: REDACTED, name: `pk ${REDACTED}` }],
      },
      count: 3,
      ok: true,
      none: null,
    });
  });

  it("writes an error as its type, message and stack, without a failed query's parameters", () => {
    const error = new QueryFailedError(
      'SELECT * FROM projects WHERE api_key = $1',
      ['the-key-itself'],
      new Error(`bad key ${API_KEY}`),
    );
    const value = redactValue({ err: error }) as { err: Record<string, unknown> };
    expect(value.err.type).toBe('QueryFailedError');
    expect(value.err.message).toBe(`bad key ${REDACTED}`);
    expect(value.err.parameters).toBe(REDACTED);
    expect(value.err.query).toBe('SELECT * FROM projects WHERE api_key = $1');
    expect(JSON.stringify(value)).not.toContain('the-key-itself');
    expect(JSON.stringify(value)).not.toContain(API_KEY);
  });

  it('ends on a cycle and writes dates as JSON does', () => {
    const cyclic: Record<string, unknown> = { name: 'x' };
    cyclic.self = cyclic;
    expect(JSON.stringify(redactValue(cyclic))).toContain('[Object]');
    expect(redactValue({ at: new Date(0) })).toEqual({ at: '1970-01-01T00:00:00.000Z' });
  });
});

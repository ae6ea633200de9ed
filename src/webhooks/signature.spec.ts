import { Webhook } from 'standardwebhooks';
import { generateSecret, signatureOf, webhookHeaders } from './signature';

const now = () => Math.floor(Date.now() / 1000);
const body = '{"id":"evt_0123456789abcdef0123456789abcdef","type":"ping","data":{}}';
const id = 'evt_0123456789abcdef0123456789abcdef';

describe('webhook signature', () => {
  it('reproduces the Standard Webhooks test vector', () => {
    // From standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts,
    // "sign function works" (the same vector is in the other reference libraries' tests).
    expect(
      signatureOf(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('agrees with the reference library for a fresh secret', () => {
    const secret = generateSecret();
    const at = now();
    expect(signatureOf(secret, id, at, body)).toBe(
      new Webhook(secret).sign(id, new Date(at * 1000), body),
    );
  });

  it('makes secrets of whsec_ and 24 random bytes', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(24);
    expect(generateSecret()).not.toBe(secret);
  });

  it('gives the delivery headers', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(
      webhookHeaders([secret], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'),
    ).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
      'content-type': 'application/json',
      'user-agent': 'svc-webhooks/1',
    });
  });

  it('is verified by the Standard Webhooks library with one secret', () => {
    const secret = generateSecret();
    const headers = webhookHeaders([secret], id, now(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('is verified with either secret while a rotation signs with two', () => {
    const current = generateSecret();
    const previous = generateSecret();
    const headers = webhookHeaders([current, previous], id, now(), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow(
      'No matching signature found',
    );
  });

  it('fails verification when the body, the timestamp or the id is tampered with', () => {
    const secret = generateSecret();
    const at = now();
    const headers = webhookHeaders([secret], id, at, body);
    const verifier = new Webhook(secret);
    expect(() => verifier.verify(body.replace('ping', 'pong'), headers)).toThrow(
      'No matching signature found',
    );
    expect(() =>
      verifier.verify(body, { ...headers, 'webhook-timestamp': String(at - 1) }),
    ).toThrow('No matching signature found');
    expect(() =>
      verifier.verify(body, { ...headers, 'webhook-id': 'evt_ffffffffffffffffffffffffffffffff' }),
    ).toThrow('No matching signature found');
  });
});

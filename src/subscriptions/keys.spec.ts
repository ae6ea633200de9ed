import { createHash } from 'node:crypto';
import { generateProjectApiKey, generateSecretKey, hashKey, keyMatches } from './keys';

describe('keys', () => {
  it('makes project API keys of 64 lowercase hex characters, all different', () => {
    const keys = Array.from({ length: 200 }, () => generateProjectApiKey());
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(keys).size).toBe(200);
  });

  it('makes URL-safe secret keys of 256 bits, all different', () => {
    const keys = Array.from({ length: 200 }, () => generateSecretKey());
    for (const key of keys) {
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(key, 'base64url')).toHaveLength(32);
    }
    expect(new Set(keys).size).toBe(200);
  });

  it('hashes with SHA-256 as 64 hex characters', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashKey('ü')).toBe(createHash('sha256').update(Buffer.from('ü', 'utf8')).digest('hex'));
  });

  it('matches a key against its stored hash', () => {
    const key = generateSecretKey();
    const stored = hashKey(key);
    expect(keyMatches(key, stored)).toBe(true);
    // char(64) columns may come back padded.
    expect(keyMatches(key, `${stored}  `)).toBe(true);
  });

  it('refuses another key, a truncated hash and garbage', () => {
    const stored = hashKey('right');
    expect(keyMatches('wrong', stored)).toBe(false);
    expect(keyMatches('right', stored.slice(0, 62))).toBe(false);
    expect(keyMatches('right', '')).toBe(false);
    expect(keyMatches('right', 'not hex at all')).toBe(false);
    expect(keyMatches('', stored)).toBe(false);
  });

  it('compares in constant time (crypto.timingSafeEqual on equal-length buffers)', () => {
    const crypto = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      keyMatches('a', hashKey('b'));
      expect(spy).toHaveBeenCalledTimes(1);
      const [a, b] = spy.mock.calls[0];
      expect((a as Buffer).length).toBe(32);
      expect((b as Buffer).length).toBe(32);
    } finally {
      spy.mockRestore();
    }
  });
});

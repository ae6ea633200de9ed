import { isEmailAddress } from './validators';

describe('isEmailAddress', () => {
  it.each([
    'ann@example.com',
    'first.last+tag@sub.example.co.uk',
    "o'brien@example.ie",
    'x/y@example.com',
    `${'a'.repeat(64)}@example.com`,
  ])('accepts %s', (address) => {
    expect(isEmailAddress(address)).toBe(true);
  });

  it.each([
    ['an address that climbs out of the outbox', 'x/../../../tmp/pwn@a.b'],
    ['consecutive dots in the local part', 'a..b@example.com'],
    ['a one-letter top-level domain', 'ann@example.b'],
    ['no top-level domain', 'ann@localhost'],
    ['an IP address as domain', 'ann@[127.0.0.1]'],
    ['a display name', 'Ann <ann@example.com>'],
    ['no local part', '@example.com'],
    ['no domain', 'ann@'],
    ['two at signs', 'ann@b@example.com'],
    ['a header line break in a quoted local part', '"a\r\nBcc: x@evil.example"@example.com'],
    ['a space in a quoted local part', '"a b"@example.com'],
    ['a local part over 64 characters', `${'a'.repeat(65)}@example.com`],
    [
      'an address over 254 characters',
      `a@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(70)}.com`,
    ],
  ])('refuses %s', (_name, address) => {
    expect(isEmailAddress(address)).toBe(false);
  });
});

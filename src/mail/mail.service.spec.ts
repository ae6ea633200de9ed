import * as path from 'node:path';
import { outboxFile } from './mail.service';

describe('outboxFile', () => {
  const outbox = path.resolve('/data/outbox');

  it('names <id>.eml directly inside the outbox', () => {
    expect(outboxFile('/data/outbox', 'welcome-0b5e-41c2')).toBe(
      path.join(outbox, 'welcome-0b5e-41c2.eml'),
    );
    expect(outboxFile('/data/../data/outbox/', 'a1')).toBe(path.join(outbox, 'a1.eml'));
  });

  it.each([
    ['an e-mail address', 'webhook-disabled-1-2-ann@example.com'],
    ['an address that climbs out of the outbox', 'webhook-disabled-1-2-x/../../../tmp/pwn@a.b'],
    ['a parent folder', '..'],
    ['a dot', '.'],
    ['a backslash', 'a\\..\\b'],
    ['an absolute path', '/etc/passwd'],
    ['a leading hyphen', '-rf'],
    ['nothing', ''],
    ['more than 200 characters', 'a'.repeat(201)],
  ])('refuses %s', (_name, id) => {
    expect(() => outboxFile('/data/outbox', id)).toThrow(
      `mail id ${JSON.stringify(id)} is not made of ids`,
    );
  });
});

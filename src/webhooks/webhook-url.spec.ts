import { lookup } from 'node:dns/promises';
import { checkWebhookUrl } from './webhook-url';

// The real resolver, except where a test names the addresses a host resolves to (no test may
// depend on public DNS).
jest.mock('node:dns/promises', () => {
  const actual = jest.requireActual<typeof import('node:dns/promises')>('node:dns/promises');
  return { ...actual, lookup: jest.fn(actual.lookup) };
});
const resolvesTo = (addresses: { address: string; family: number }[]) =>
  jest.mocked(lookup).mockResolvedValueOnce(addresses as never);

const strict = { allowLoopback: false };
const loopback = { allowLoopback: true };

describe('checkWebhookUrl', () => {
  it.each([
    ['https://93.184.216.34/hooks', strict],
    ['https://[2606:4700:4700::1111]:8443/in?x=1', strict],
    ['http://127.0.0.1:8080/hook', loopback],
    ['http://localhost:8080/hook', loopback],
    ['http://[::1]/hook', loopback],
    ['https://127.0.0.1/hook', loopback],
  ])('accepts %s', async (url, options) => {
    await expect(checkWebhookUrl(url, options)).resolves.toBeNull();
  });

  it.each([
    ['/hooks', strict, 'not an absolute URL'],
    ['hooks.example.com/in', strict, 'not an absolute URL'],
    [
      `https://93.184.216.34/${'a'.repeat(2049 - 'https://93.184.216.34/'.length)}`,
      strict,
      'longer than 2048 characters',
    ],
    ['https://user:pw@93.184.216.34/', strict, 'must not contain credentials'],
    ['https://user@93.184.216.34/', strict, 'must not contain credentials'],
    ['http://93.184.216.34/', strict, 'must be https'],
    ['http://93.184.216.34/', loopback, 'must be https'],
    ['http://127.0.0.1/', strict, 'must be https'],
    ['http://localhost/', strict, 'must be https'],
    ['ftp://93.184.216.34/', loopback, 'must be https'],
    ['https://127.0.0.1/', strict, '127.0.0.1 resolves to a forbidden address'],
    ['https://localhost/', strict, 'localhost resolves to a forbidden address'],
    ['https://[::1]/', strict, '::1 resolves to a forbidden address'],
    ['https://[::ffff:127.0.0.1]/', strict, '::ffff:7f00:1 resolves to a forbidden address'],
    [
      'https://169.254.169.254/latest/meta-data/',
      loopback,
      '169.254.169.254 resolves to a forbidden address',
    ],
    ['https://10.0.0.5/', loopback, '10.0.0.5 resolves to a forbidden address'],
    ['https://0x7f000001/', strict, '127.0.0.1 resolves to a forbidden address'],
    ['https://no-such-host.invalid/', strict, 'cannot resolve no-such-host.invalid'],
  ])('refuses %s (%o)', async (url, options, reason) => {
    await expect(checkWebhookUrl(url, options)).resolves.toBe(reason);
  });

  it('accepts exactly 2,048 characters', async () => {
    const base = 'https://93.184.216.34/';
    await expect(
      checkWebhookUrl(base + 'a'.repeat(2048 - base.length), strict),
    ).resolves.toBeNull();
  });

  it('refuses a host when any of its addresses is forbidden', async () => {
    resolvesTo([
      { address: '93.184.216.34', family: 4 },
      { address: '192.168.1.10', family: 4 },
    ]);
    await expect(checkWebhookUrl('https://hooks.example.com/in', strict)).resolves.toBe(
      'hooks.example.com resolves to a forbidden address',
    );
    expect(lookup).toHaveBeenCalledWith('hooks.example.com', { all: true, verbatim: true });
  });

  it('accepts a host whose addresses are all public', async () => {
    resolvesTo([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
    await expect(checkWebhookUrl('https://hooks.example.com/in', strict)).resolves.toBeNull();
  });
});

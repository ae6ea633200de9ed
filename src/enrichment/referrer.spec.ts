import { referrerHost } from './referrer';

describe('referrerHost', () => {
  it.each([
    ['https://www.Google.com/search?q=x', 'google.com'],
    ['http://t.co/abc', 't.co'],
    ['android-app://com.google.android.gm/', 'com.google.android.gm'],
    ['https://WWW.example.co.uk.:8080/', 'example.co.uk'],
    ['https://user:pass@News.Example.org/path#frag', 'news.example.org'],
    ['https://www.www.example.com/', 'www.example.com'],
    ['https://wwwexample.com/', 'wwwexample.com'],
    ['http://[2001:DB8::1]:8080/', '[2001:db8::1]'],
    ['https://xn--bcher-kva.example/', 'xn--bcher-kva.example'],
    ['https://bücher.example/', 'xn--bcher-kva.example'],
  ])('reads %s as %s', (referrer, host) => {
    expect(referrerHost(referrer)).toBe(host);
  });

  it.each([
    null,
    '',
    'not a url',
    '/relative/path',
    'mailto:someone@example.com',
    'file:///etc/hosts',
  ])('has no host for %j', (referrer) => {
    expect(referrerHost(referrer)).toBeNull();
  });
});

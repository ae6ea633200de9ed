import { isCrawler } from './bots';

describe('isCrawler', () => {
  it.each([
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Twitterbot/1.0',
    'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  ])('flags %s', (ua) => {
    expect(isCrawler(ua)).toBe(true);
  });

  it.each([
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
    'curl/8.5.0',
    'python-requests/2.31.0',
    'axios/1.6.0',
    'node',
    'undici',
    'Go-http-client/1.1',
    'okhttp/4.12.0',
    'Java/17.0.2',
    'PostmanRuntime/7.36.0',
    '',
  ])('does not flag %j', (ua) => {
    expect(isCrawler(ua)).toBe(false);
  });

  it('does not flag a missing user agent', () => {
    expect(isCrawler(undefined)).toBe(false);
  });
});

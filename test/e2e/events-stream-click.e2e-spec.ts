import { TestApp, createTestApp } from '../support/app';
import { BROWSER, storedClicks } from '../support/clicks';
import { stream } from '../support/sse-client';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/**
 * A real click on the live feed, without a browser (docs/api.md, "Live feed" and "Events and their
 * delivery"): a GET of a short link through the redirect listener is answered 302, and the
 * project's stream then carries its `link.clicked`, with the click's id and dimensions and never
 * its address or user agent. Another project's stream gets nothing of it.
 */
describe('a click on the live feed', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: 'true' } });
    await t.app.listen(0, '127.0.0.1');
  });
  afterAll(() => t.close());

  it('streams the link.clicked of a redirect to the stream of its project', async () => {
    const { api_key: key } = await createProject(t);
    const { api_key: otherKey } = await createProject(t);
    const link = await createLink(t, key, { url: 'https://shop.example/spring' });
    const token = async (apiKey: string) =>
      (
        (await t.http.post('/events/stream/token').set('X-Api-Key', apiKey).expect(200)).body as {
          token: string;
        }
      ).token;
    const client = await stream(t.app, { token: await token(key) });
    const other = await stream(t.app, { token: await token(otherKey) });
    try {
      const answer = await t.http
        .get(`/${link.path}`)
        .set('Host', link.domain)
        .set('User-Agent', BROWSER)
        .set('X-Forwarded-For', '81.2.69.142')
        .set('Referer', 'https://www.news.example.org/today')
        .expect(302);
      expect(answer.headers.location).toBe('https://shop.example/spring');
      await t.settle();

      await client.until((c) => c.events.length === 1, 'the click');
      const [message] = client.events;
      const event = JSON.parse(message.data ?? '') as {
        id: string;
        type: string;
        created_at: string;
        data: { svc_id: string; click: Record<string, unknown> };
      };
      const [stored] = await storedClicks(t);
      expect([message.id, message.event]).toEqual([event.id, 'link.clicked']);
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
        type: 'link.clicked',
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        data: {
          svc_id: link.svc_id,
          click: {
            id: stored.id,
            clicked_at: stored.clicked_at.toISOString(),
            country: 'GB',
            region: expect.any(String),
            city: expect.any(String),
            device: 'desktop',
            browser: 'Chrome',
            os: 'Linux',
            referrer_host: 'news.example.org',
          },
        },
      });
      expect(message.data).not.toContain('81.2.69.142');
      expect(message.data).not.toContain(BROWSER);
      // The other project's stream is open and was sent nothing.
      expect([other.ended, other.events]).toEqual([false, []]);
    } finally {
      client.close();
      other.close();
    }
  });
});

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestApp, createTestApp } from '../support/app';
import { adminPost } from '../factories/admin';
import { createLink } from '../factories/links';
import { createProject } from '../factories/projects';

/**
 * docs/api.md, "Addresses": an IPv4 client is stored and answered as IPv4, and the SSRF guard
 * refuses every IPv6 form of a private IPv4 address. The app listens dual-stack (`::`, as a
 * server started without a host does) and supertest reaches it over IPv4, so Node names the
 * client `::ffff:127.0.0.1`.
 */
describe('addresses', () => {
  let t: TestApp;
  let key: string;
  let svcId: string;

  beforeAll(async () => {
    t = await createTestApp();
    const server: Server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    expect((server.address() as AddressInfo).family).toBe('IPv6');
    key = (await createProject(t, { conversions: { enabled: true, domains: 'all' } })).api_key;
    svcId = (await createLink(t, key)).svc_id;
  });
  afterAll(() => t.close());

  /** A goal through the API key, whose answer carries the visitor fields. */
  async function convert(
    query: Record<string, string>,
  ): Promise<{ answered: string; stored: { ip: string; family: number } }> {
    const res = await t.http
      .get('/conversions/new')
      .query({ key, svc_url: svcId, conversion_type: 'goal_1', conversion_value: '1', ...query })
      .expect(200);
    const { id, ip_address } = res.body.response.conversion as { id: string; ip_address: string };
    const result = await t.db.query<{ ip: string; family: number }>(
      'SELECT host(ip) AS ip, family(ip) AS family FROM conversions WHERE id = $1',
      [id],
    );
    return { answered: ip_address, stored: result.rows[0] };
  }

  describe('an IPv4 client is IPv4', () => {
    it('conversions/new with read_headers answers and stores 127.0.0.1, not ::ffff:127.0.0.1', async () => {
      expect(await convert({ read_headers: 'true' })).toEqual({
        answered: '127.0.0.1',
        stored: { ip: '127.0.0.1', family: 4 },
      });
    });

    it.each([
      ['::ffff:198.51.100.7', '198.51.100.7', 4],
      ['::FFFF:c633:6407', '198.51.100.7', 4],
      ['2001:db8::7', '2001:db8::7', 6],
    ])('an ip parameter of %s is answered and stored as %s', async (ip, plain, family) => {
      expect(await convert({ ip })).toEqual({ answered: plain, stored: { ip: plain, family } });
    });
  });

  describe('the SSRF guard refuses IPv6 forms of private IPv4 addresses', () => {
    async function webhookCount(): Promise<number> {
      const result = await t.db.query<{ n: string }>('SELECT count(*) AS n FROM webhooks');
      return Number(result.rows[0].n);
    }

    it.each([
      // IPv4-compatible 169.254.169.254 (the cloud metadata service), as the URL parser writes it.
      ['https://[::a9fe:a9fe]/', '::a9fe:a9fe'],
      ['https://[::169.254.169.254]/', '::a9fe:a9fe'],
      // IPv4-translated and NAT64 forms of it.
      ['https://[::ffff:0:a9fe:a9fe]/', '::ffff:0:a9fe:a9fe'],
      ['https://[64:ff9b::a9fe:a9fe]/', '64:ff9b::a9fe:a9fe'],
      // IPv4-compatible 10.0.0.1.
      ['https://[::a00:1]/hook', '::a00:1'],
    ])('webhooks/new refuses %s with 400 naming json.url', async (url, host) => {
      const json = { project: key, url, events: ['link.clicked'] };
      const res = await adminPost(t, '/webhooks/new', json).expect(400);
      expect(res.body.error).toEqual({
        code: 1002,
        message: `Invalid parameter json.url: ${host} resolves to a forbidden address`,
      });
      expect(await webhookCount()).toBe(0);
    });
  });
});

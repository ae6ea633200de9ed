import type { ClickHouseClient } from '@clickhouse/client';
import { AnalyticsClient, chTime, fromChTime } from './analytics-client';

describe('chTime', () => {
  it('writes every millisecond as ISO 8601 does, in the form ClickHouse reads, and back', () => {
    const start = Date.UTC(2026, 10, 25, 23, 59, 58, 990);
    const times = [0, 999, 1000, Date.UTC(1999, 11, 31, 23, 59, 59, 999)];
    for (let ms = start; ms < start + 2100; ms += 7) times.push(ms);
    for (let i = 0; i < 500; i++) times.push(Math.floor(Math.random() * 4_102_444_800_000));
    for (const ms of times) {
      const written = chTime(ms);
      expect(written).toBe(new Date(ms).toISOString().replace('T', ' ').replace('Z', ''));
      expect(chTime(new Date(ms))).toBe(written);
      expect(fromChTime(written).getTime()).toBe(ms);
    }
  });

  it('refuses an invalid date', () => {
    expect(() => chTime(Number.NaN)).toThrow(RangeError);
  });
});

describe('AnalyticsClient.stampStateWrites', () => {
  // A transport that accepts every statement: only the counting is under test.
  const transport = { command: async () => ({}), insert: async () => ({}) } as unknown as ClickHouseClient;
  const embedded = () => new AnalyticsClient(transport, 'svc', 'test', async () => ({}) as never);

  it('is kept only for the embedded engine, the store of one process: a server is written by others too', () => {
    const server = new AnalyticsClient(transport, 'svc', 'test');
    expect(server.soleWriter).toBe(false);
    expect(server.stampStateWrites).toBeNull();
    expect(embedded().soleWriter).toBe(true);
    expect(embedded().stampStateWrites).toEqual(expect.any(Number));
  });

  it('counts every command and every insert that may add a link update or an unstamped event, across the clients of the engine', async () => {
    const client = embedded();
    const other = embedded();
    const count = () => client.stampStateWrites!;
    let before = count();
    await other.command('ALTER TABLE svc.clicks UPDATE link_version = 0 WHERE 1');
    expect(count()).toBe(before + 1);
    before = count();
    await client.insertTabSeparated('clicks', ['project_id'], 'x\n', 1, { stamped: true });
    await client.insertTabSeparated('conversions', ['project_id'], 'x\n', 1, { stamped: true });
    await client.insert('links', [{ link_id: 1 }]);
    await client.insert('link_updates', []);
    expect(count()).toBe(before);
    await client.insertTabSeparated('clicks', ['project_id'], 'x\n', 1);
    expect(count()).toBe(before + 1);
    await client.insertTabSeparated('conversions', ['project_id'], 'x\n', 1, { stamped: false });
    expect(count()).toBe(before + 2);
    await client.insert('link_updates', [{ link_id: 1 }], { stamped: true });
    expect(count()).toBe(before + 3);
    await client.insert('clicks', [{ link_id: 1 }]);
    expect(count()).toBe(before + 4);
  });

  it('counts a write that failed: it may have written a part', async () => {
    const failing = { insert: async () => Promise.reject(new Error('refused')) } as unknown as ClickHouseClient;
    const client = new AnalyticsClient(failing, 'svc', 'test', async () => Promise.reject(new Error('refused')));
    const before = client.stampStateWrites!;
    await expect(client.insertTabSeparated('clicks', ['project_id'], 'x\n', 1)).rejects.toThrow('refused');
    expect(client.stampStateWrites).toBe(before + 1);
  });
});

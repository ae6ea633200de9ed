import type { ClickHouseClient } from '@clickhouse/client';
import { AnalyticsClient } from './analytics-client';
import { insertConversionEvents } from './conversion-events';
import { LinkMirror, MirroredLink } from './link-mirror';
import { LinkStamps, UNSTAMPED } from './link-stamps';
import { countStampStateWrite, stampStateWrites } from './stamp-state';

describe('stamp-state writes', () => {
  // A transport that accepts every statement: only the counting is under test.
  const transport = {
    command: async () => ({}),
    insert: async () => ({}),
  } as unknown as ClickHouseClient;
  const embedded = () => new AnalyticsClient(transport, 'svc', 'test', async () => ({}) as never);
  /** Stamps every link with `stamp`. */
  const stampsOf = (stamp: string) =>
    ({
      of: async (_projects: readonly string[], links: Iterable<string>) =>
        new Map([...links].map((link) => [link, stamp])),
    }) as unknown as LinkStamps;
  const conversion = {
    project_id: '00000000-0000-0000-0000-000000000001',
    link_id: '1',
    converted_at: new Date(),
    conversion_id: '00000000-0000-0000-0000-000000000002',
    type: 'goal_1',
    value: 5,
  };
  const created = new Date(Date.UTC(2026, 10, 25));
  const link = {
    id: '1',
    projectId: conversion.project_id,
    createdAt: created,
    updatedAt: created,
  } as MirroredLink;

  it('is kept only for the embedded engine, the store of one process: a server is written by others too', () => {
    const server = new AnalyticsClient(transport, 'svc', 'test');
    expect(server.soleWriter).toBe(false);
    expect(stampStateWrites(server)).toBeNull();
    expect(embedded().soleWriter).toBe(true);
    expect(stampStateWrites(embedded())).toEqual(expect.any(Number));
  });

  it('counts every command and every insert that may add a link update or an unstamped event, across the clients of the engine', async () => {
    const client = embedded();
    const other = embedded();
    const count = () => stampStateWrites(client)!;
    let before = count();
    await countStampStateWrite(
      other,
      other.command('ALTER TABLE svc.clicks UPDATE link_version = 0 WHERE 1'),
    );
    expect(count()).toBe(before + 1);
    before = count();
    // Stamped conversions; a link's creation (`links` only; no update listed).
    await insertConversionEvents(client, stampsOf('7\tx'), [conversion], 'stamped');
    await new LinkMirror(client).mirror([link]);
    expect(count()).toBe(before);
    await insertConversionEvents(client, stampsOf(UNSTAMPED), [conversion], 'unstamped');
    expect(count()).toBe(before + 1);
    // An update: listed in link_updates.
    await new LinkMirror(client).mirror([link], created.getTime() * 1000 + 1);
    expect(count()).toBe(before + 2);
  });

  it('counts a write that failed: it may have written a part', async () => {
    const failing = {
      insert: async () => Promise.reject(new Error('refused')),
    } as unknown as ClickHouseClient;
    const client = new AnalyticsClient(failing, 'svc', 'test', async () =>
      Promise.reject(new Error('refused')),
    );
    const before = stampStateWrites(client)!;
    await expect(
      countStampStateWrite(client, client.insertTabSeparated('clicks', ['project_id'], 'x\n', 1)),
    ).rejects.toThrow('refused');
    expect(stampStateWrites(client)).toBe(before + 1);
  });
});

import { AppConfig } from '../config/app-config';
import { InvalidationBus } from '../queue/invalidation-bus';
import { AnalyticsClient, Params } from './analytics-client';
import { STAMP_COLUMNS } from './analytics-schema';
import { LinkStamps, STAMP_CACHE_SIZE, STAMP_TTL_MS, UNSTAMPED, stampFields } from './link-stamps';

/** A store whose `links` holds the given stamps by link id, counting the links each read asked for. */
function store(stamps: Record<string, string>) {
  const reads: string[][] = [];
  const analytics = {
    database: 'svc',
    query: async (_sql: string, params: Params) => {
      const links = (params.links as number[]).map(String);
      reads.push(links);
      return links.filter((id) => id in stamps).map((id) => ({ id, stamp: stamps[id] }));
    },
  } as unknown as AnalyticsClient;
  return { analytics, reads };
}

describe('LinkStamps', () => {
  afterEach(() => jest.useRealTimers());

  it('reads the stamps of the links not kept, once per link, and stamps a link the mirror lacks as unstamped', async () => {
    const { analytics, reads } = store({ '1': '7\ta', '2': '8\tb' });
    const stamps = new LinkStamps(analytics);
    const first = await stamps.of(['p'], ['1', '2', '1', '3', '2']);
    expect(Object.fromEntries(first)).toEqual({ '1': '7\ta', '2': '8\tb', '3': UNSTAMPED });
    expect(reads).toEqual([['1', '2', '3']]);
    // Kept: no read at all.
    expect(Object.fromEntries(await stamps.of(['p'], ['2', '3']))).toEqual({
      '2': '8\tb',
      '3': UNSTAMPED,
    });
    expect(reads).toHaveLength(1);
  });

  it('reads a link again once its stamp is older than a minute', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const backing: Record<string, string> = { '1': '7\ta' };
    const { analytics, reads } = store(backing);
    const stamps = new LinkStamps(analytics);
    await stamps.of(['p'], ['1']);
    backing['1'] = '9\tupdated';
    jest.setSystemTime(1_000_000 + STAMP_TTL_MS - 1);
    expect((await stamps.of(['p'], ['1'])).get('1')).toBe('7\ta');
    jest.setSystemTime(1_000_000 + STAMP_TTL_MS);
    expect((await stamps.of(['p'], ['1'])).get('1')).toBe('9\tupdated');
    expect(reads).toEqual([['1'], ['1']]);
  });

  it('reads a link again at once when the bus says its stamps changed (an erasure), or drops all after a reconnect', async () => {
    const backing: Record<string, string> = { '1': '7\ta', '2': '8\tb' };
    const { analytics, reads } = store(backing);
    const bus = new InvalidationBus({ redisPrefix: 'svc', redisUrl: null } as unknown as AppConfig);
    const stamps = new LinkStamps(analytics, bus);
    await stamps.of(['p'], ['1', '2']);
    backing['1'] = '9\terased';
    // Another kind changes nothing here.
    await bus.changed('link', ['1']);
    expect((await stamps.of(['p'], ['1', '2'])).get('1')).toBe('7\ta');
    await bus.changed('stamps', ['1']);
    expect((await stamps.of(['p'], ['1', '2'])).get('1')).toBe('9\terased');
    expect(reads).toEqual([['1', '2'], ['1']]);
    // Messages missed (a reconnect): every kept stamp goes.
    await bus.changed('project', ['*']);
    await stamps.of(['p'], ['1', '2']);
    expect(reads[2]).toEqual(['1', '2']);
  });

  it('keeps at most STAMP_CACHE_SIZE links, dropping the least recently read', async () => {
    const { analytics, reads } = store({});
    const stamps = new LinkStamps(analytics);
    const many = Array.from({ length: STAMP_CACHE_SIZE + 1 }, (_, i) => String(i));
    await stamps.of(['p'], many);
    await stamps.of(['p'], [String(STAMP_CACHE_SIZE)]);
    expect(reads).toHaveLength(1);
    await stamps.of(['p'], ['0']);
    expect(reads[1]).toEqual(['0']);
  });

  it('spells an empty stamp as ClickHouse reads every stamp column: version 0, NULLs, empty strings and arrays, no chain', () => {
    const fields = UNSTAMPED.split('\t');
    expect(fields).toHaveLength(STAMP_COLUMNS.length);
    expect(Object.fromEntries(STAMP_COLUMNS.map(([name], i) => [name, fields[i]]))).toEqual({
      link_version: '0',
      domain: '',
      channel: '\\N',
      service: '\\N',
      tool: '',
      application: '',
      campaign: '\\N',
      tag: '\\N',
      tag_2: '[]',
      tag_3: '[]',
      tag_4: '[]',
      tag_5: '[]',
      parent: '\\N',
      sharer_id: '\\N',
      username: '\\N',
      service_userid: '\\N',
      user_id: '\\N',
      shared_at: '1970-01-01 00:00:00.000',
      chain_stamped: '0',
      ancestors: '[]',
    });
  });

  it('reads a stamp with its chain: chain_stamped and the ancestors as decimal ids', () => {
    const line = (chain: string) => [...UNSTAMPED.split('\t').slice(0, -2), '1', chain].join('\t');
    const fields = stampFields(line('[18446744073709551615,3]'));
    expect(fields.slice(-2)).toEqual([1, ['18446744073709551615', '3']]);
    expect(stampFields(line('[]')).slice(-2)).toEqual([1, []]);
    expect(() => stampFields(line("['3']"))).toThrow('a stamp array not of ids');
  });
});

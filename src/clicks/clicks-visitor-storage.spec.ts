import type { ClickHouseClient } from '@clickhouse/client';
import { AnalyticsClient } from '../analytics/analytics-client';
import { UNSTAMPED } from '../analytics/link-stamps';
import type { VisitorStorage } from '../common/visitor-storage';
import { loadConfig } from '../config/app-config';
import { ByteSink } from './byte-sink';
import { ClickEvent, clickColumns } from './click-event';
import { CLICK_COLUMNS, ClicksRepository } from './clicks.repository';

const AGENT = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) Safari/604.1';
const PROJECTS = [
  '00000000-0000-4000-8000-000000000001',
  '00000000-0000-4000-8000-000000000002',
  '00000000-0000-4000-8000-000000000003',
];

/** One click of each project, all from the same visitor. */
function batch() {
  const clicks: ClickEvent[] = PROJECTS.map((projectId, i) => ({
    id: `0190a000-0000-7000-8000-00000000000${i}`,
    linkId: String(i + 1),
    projectId,
    clickedAt: Date.parse('2026-11-30T10:00:00Z'),
    referrer: null,
    userAgent: AGENT,
    ip: '2a00:1450:4001:80b::200e',
    isBot: false,
  }));
  return clickColumns(clicks);
}

/** The rows a batch is written as (TabSeparated, a store without Native input), by column. */
function rows(storage?: VisitorStorage[], clickIp: 'full' | 'anonymised' | 'none' = 'anonymised') {
  const transport = {} as ClickHouseClient;
  const store = new AnalyticsClient(transport, 'svc', 'test', async () => ({}) as never);
  const repository = new ClicksRepository(store, loadConfig({ CLICK_IP: clickIp }));
  const columns = batch();
  const sink = new ByteSink();
  const described = {
    places: [{ country: 'DE', region: 'Hesse', city: 'Frankfurt am Main' }],
    agents: [{ device: 'mobile' as const, browser: 'Safari', os: 'iOS' }],
    referrers: [],
  };
  const stamps = new Map(columns.links.map((id) => [id, UNSTAMPED]));
  repository.encode(columns, [0, 1, 2], stamps, described, sink, storage);
  return sink.bytes
    .toString('utf8')
    .split('\n')
    .slice(0, -1)
    .map((line) => {
      const fields = line.split('\t');
      const at = (name: string) => fields[CLICK_COLUMNS.indexOf(name)];
      return [at('ip'), at('user_agent'), at('country'), at('city'), at('device'), at('os')];
    });
}

describe('ClicksRepository.encode: each click as its project keeps visitors', () => {
  it("stores each project's clicks by its own ip_storage and ua_storage, with the same dimensions", () => {
    expect(
      rows([
        { ip: 'full', userAgent: 'full' },
        { ip: 'anonymised', userAgent: 'parsed' },
        { ip: 'none', userAgent: 'parsed' },
      ]),
    ).toEqual([
      ['2a00:1450:4001:80b::200e', AGENT, 'DE', 'Frankfurt am Main', 'mobile', 'iOS'],
      ['2a00:1450:4001::', '\\N', 'DE', 'Frankfurt am Main', 'mobile', 'iOS'],
      ['\\N', '\\N', 'DE', 'Frankfurt am Main', 'mobile', 'iOS'],
    ]);
  });

  it("without projects' settings, stores the address as CLICK_IP says and the user agent whole", () => {
    const anonymised = ['2a00:1450:4001::', AGENT, 'DE', 'Frankfurt am Main', 'mobile', 'iOS'];
    expect(rows()).toEqual([anonymised, anonymised, anonymised]);
    expect(rows(undefined, 'none').map((row) => row[0])).toEqual(['\\N', '\\N', '\\N']);
  });
});

import type { ClickHouseClient } from '@clickhouse/client';
import { AnalyticsClient } from '../analytics/analytics-client';
import { stampStateWrites } from '../analytics/stamp-state';
import { loadConfig } from '../config/app-config';
import { ByteSink } from './byte-sink';
import { ClicksRepository } from './clicks.repository';

describe('ClicksRepository.insert', () => {
  it('counts a block as a write that changes a stamp state only when any of its clicks is unstamped', async () => {
    const transport = { insert: async () => ({}) } as unknown as ClickHouseClient;
    const store = new AnalyticsClient(transport, 'svc', 'test', async () => ({}) as never);
    const repository = new ClicksRepository(store, loadConfig({}));
    const count = () => stampStateWrites(store)!;
    const before = count();
    const lines = new ByteSink();
    lines.write('a\nb\n');
    await repository.insert(lines, [
      { rows: 1, token: 'a', stamped: true },
      { rows: 1, token: 'b', stamped: true },
    ]);
    expect(count()).toBe(before);
    await repository.insert(lines, [
      { rows: 1, token: 'a', stamped: true },
      { rows: 1, token: 'c', stamped: false },
    ]);
    expect(count()).toBe(before + 1);
  });
});

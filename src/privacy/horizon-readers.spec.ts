import { AnalyticsClient } from '../analytics/analytics-client';
import { HorizonReaders } from './horizon-readers';

/** A store whose running statements are listed from `runs`, one answer per look. */
function store(runs: string[][]) {
  const looks: { sql: string; params: Record<string, unknown> }[] = [];
  const analytics = {
    database: 'svc',
    query: (sql: string, params: Record<string, unknown>) => {
      looks.push({ sql, params });
      const among = params.among as string[] | undefined;
      const ids = (runs.shift() ?? []).filter((id) => !among || among.includes(id));
      return Promise.resolve(ids.map((id) => ({ id })));
    },
  } as unknown as AnalyticsClient;
  return { readers: new HorizonReaders(analytics), looks };
}

describe('HorizonReaders', () => {
  it('waits until the readers of horizons running at first look have ended, not later ones', async () => {
    const { readers, looks } = store([['a', 'b'], ['a', 'b', 'c'], ['b', 'c'], ['c']]);
    await readers.settle();
    expect(looks).toHaveLength(4);
    expect(looks[0].sql.replace(/\s+/g, ' ')).toBe(
      'SELECT query_id AS id FROM system.processes WHERE query_id != queryID() AND position(query, {table:String}) > 0 ',
    );
    expect(looks[0].params).toEqual({ table: 'svc.retired_horizons' });
    expect(looks[1].params).toEqual({ table: 'svc.retired_horizons', among: ['a', 'b'] });
    expect(looks[3].params.among).toEqual(['b']);
  });

  it('returns at once when none runs, and when the store cannot list them', async () => {
    const { readers, looks } = store([[]]);
    await readers.settle();
    expect(looks).toHaveLength(1);
    const failing = new HorizonReaders({
      database: 'svc',
      query: () => Promise.reject(new Error('no access')),
    } as unknown as AnalyticsClient);
    await expect(failing.settle()).resolves.toBeUndefined();
  });
});

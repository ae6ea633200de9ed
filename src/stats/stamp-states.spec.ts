import { statsQuery as datedQuery } from '../../test/factories/stats-query';
import { AnalyticsClient } from '../analytics/analytics-client';
import { StampState } from './queries/row-parts';
import { StampStates, readsStamps } from './stamp-states';
import { StatsQuery } from './stats-query';
import { StatsRepository } from './stats.repository';

const statsQuery = (over: Partial<StatsQuery> = {}): StatsQuery =>
  datedQuery({ start: null, end: null, ...over });

describe('stamp states', () => {
  it('reads stamps when every grouped, pivoted and filtered field is stamped', () => {
    expect(readsStamps(statsQuery())).toBe(true);
    expect(
      readsStamps(statsQuery({ groupBy: 'channel', pivot: 'project', filters: { tag: 't' } })),
    ).toBe(true);
    expect(
      readsStamps(statsQuery({ groupBy: 'shared_at_hour_of_day', filters: { tag_2: 'x' } })),
    ).toBe(true);
    // One link's own fields are not in the stamps; a multi-value tag only filters on them.
    expect(readsStamps(statsQuery({ groupBy: 'svc_id' }))).toBe(false);
    expect(readsStamps(statsQuery({ filters: { original_url: 'https://a' } }))).toBe(false);
    expect(readsStamps(statsQuery({ groupBy: 'channel', pivot: 'service_postid' }))).toBe(false);
    expect(readsStamps(statsQuery({ kind: 'totals', groupBy: 'tag_2' }))).toBe(false);
  });

  it('joins without a read when the request does not read stamps; reads a server every time', async () => {
    const state: StampState = { updated: true, unstamped: { clicks: false, conversions: true } };
    const read = jest.fn((_projectIds: string[]) => Promise.resolve(state));
    const repository = { stampState: read } as unknown as StatsRepository;
    const server = { soleWriter: false } as unknown as AnalyticsClient;
    const states = new StampStates(repository, server);
    expect(await states.forRequest(statsQuery({ groupBy: 'svc_id' }), ['P'])).toBeNull();
    expect(read).not.toHaveBeenCalled();
    expect(await states.forRequest(statsQuery({ groupBy: 'channel' }), ['P', 'Q'])).toBe(state);
    expect(await states.forRequest(statsQuery({ groupBy: 'tag' }), ['P', 'Q'])).toBe(state);
    expect(read.mock.calls).toEqual([[['P', 'Q']], [['P', 'Q']]]);
  });
});

/**
 * Top amplifiers (docs/api.md, "Share chains (extension)"): the sharers whose shares set off the
 * most clicks downstream, every generation of reshares counted. range.json grouped by sharer_id with
 * with_chain=true, sorted by the chain's figures.
 */
import { useState } from 'preact/hooks';
import { fetchRangeWithChain, type ChainGroup, type Schemas } from '../api/client';
import { clicksOnly, scopeQuery, type StatsScope } from './stats-table';
import { Empty, ErrorNotice, Loading, useAsync } from './ui';

type Sort = Extract<
  Schemas['SortType'],
  'alpha' | 'clicks' | 'chain_clicks' | 'chain_shares' | 'amplification'
>;

interface Column {
  sort: Exclude<Sort, 'alpha'>;
  label: string;
  /** The label as a heading: soft hyphens where a narrow column breaks a long word. */
  heading: string;
  value: (g: ChainGroup) => string;
}

const COLUMNS: Column[] = [
  { sort: 'clicks', label: 'Clicks', heading: 'Clicks', value: (g) => g.clicks.toLocaleString() },
  {
    sort: 'chain_clicks',
    label: 'Chain clicks',
    heading: 'Chain clicks',
    value: (g) => g.chain.clicks.toLocaleString(),
  },
  {
    sort: 'chain_shares',
    label: 'Chain shares',
    heading: 'Chain shares',
    value: (g) => g.chain.shares.toLocaleString(),
  },
  {
    sort: 'amplification',
    label: 'Amplification',
    heading: 'Amplifi\u00ADcation',
    value: (g) => amplification(g.chain.amplification),
  },
];

/** Chain clicks per own click ("2.75×"); a dash without own clicks. */
export function amplification(value: number | null): string {
  return value === null ? '—' : `${value.toLocaleString(undefined, { maximumFractionDigits: 2 })}×`;
}

const PER_PAGE = 10;

/**
 * The sharers by the clicks their shares' reshares brought, with their own clicks, the reshares
 * below their links and the amplification. A sharer filters the dashboard.
 */
export function AmplifiersTable({
  scope,
  onFilter,
}: {
  scope: StatsScope;
  onFilter: (sharerId: string) => void;
}) {
  const [sort, setSort] = useState<Sort>('chain_clicks');
  const [order, setOrder] = useState<'asc' | 'desc'>('desc');
  const [page, setPage] = useState(1);
  // Chains follow links: the API refuses with_chain with click dimensions and with first-share
  // attribution (a chain already credits every generation to the shares above it).
  const visitors = clicksOnly(scope);
  const data = useAsync(
    async () =>
      visitors
        ? null
        : fetchRangeWithChain({
            ...scopeQuery({ ...scope, attribution: 'last' }, 'sharer_id'),
            group_by: 'sharer_id',
            sort_type: sort,
            sort_order: order,
            page,
            per_page: PER_PAGE,
          }),
    [JSON.stringify({ ...scope, attribution: 'last' }), sort, order, page],
  );
  const sortBy = (s: Sort) => {
    if (s === sort) setOrder(order === 'desc' ? 'asc' : 'desc');
    else {
      setSort(s);
      setOrder('desc');
    }
    setPage(1);
  };
  const ariaSort = (s: Sort) =>
    sort === s ? (order === 'asc' ? 'ascending' : 'descending') : undefined;
  const total = data.data?.total_results ?? 0;
  const pages = Math.max(1, Math.ceil(total / PER_PAGE));
  const answer = data.data;
  const body = visitors ? (
    <Empty>Not counted with visitor filters: chains follow links, not visitors.</Empty>
  ) : data.loading && !answer ? (
    <Loading />
  ) : !answer || answer.groups.length === 0 ? (
    <Empty>No activity in this period.</Empty>
  ) : (
    <>
      <div class="table-wrap">
        <table class="data stats" aria-labelledby="table-amplifiers-title" aria-busy={data.loading}>
          <thead>
            <tr>
              <th scope="col" aria-sort={ariaSort('alpha')}>
                <button type="button" class="sort" onClick={() => sortBy('alpha')}>
                  Sharer
                </button>
              </th>
              {COLUMNS.map((c) => (
                <th scope="col" key={c.sort} class="num" aria-sort={ariaSort(c.sort)}>
                  <button type="button" class="sort" onClick={() => sortBy(c.sort)}>
                    {c.heading}
                    {sort === c.sort ? (order === 'desc' ? ' ▼' : ' ▲') : ''}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {answer.groups.map((g) => {
              const sharer = typeof g.sharer_id === 'string' ? g.sharer_id : null;
              return (
                <tr key={sharer ?? ''} data-value={sharer ?? undefined}>
                  <th scope="row" class="break">
                    {sharer === null ? (
                      '(no sharer)'
                    ) : (
                      <button
                        type="button"
                        class="link-button"
                        onClick={() => onFilter(sharer)}
                        title={`Filter by sharer ${sharer}`}
                      >
                        {sharer}
                      </button>
                    )}
                  </th>
                  {COLUMNS.map((c) => (
                    <td class="num" key={c.sort} data-label={c.label}>
                      {c.value(g)}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Top amplifiers pages">
        <button type="button" onClick={() => setPage(page - 1)} disabled={page <= 1}>
          Previous
        </button>
        <span>
          Page {page} of {pages} ({total} in all)
        </span>
        <button type="button" onClick={() => setPage(page + 1)} disabled={page >= pages}>
          Next
        </button>
      </nav>
    </>
  );
  return (
    <section
      class="card stats-table wide"
      aria-labelledby="table-amplifiers-title"
      data-table="amplifiers"
    >
      <h2 id="table-amplifiers-title">Top amplifiers</h2>
      <p class="muted">
        Sharers by the clicks their shares set off downstream, every generation of reshares counted;
        amplification is chain clicks per own click.
        {scope.attribution === 'first' && ' Clicks by the link clicked, whatever the attribution.'}
      </p>
      <ErrorNotice error={data.error} />
      {body}
    </section>
  );
}

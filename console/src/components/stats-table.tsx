import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import {
  api,
  call,
  type AggregateResponse,
  type Attribution,
  type GroupObject,
  type Schemas,
} from '../api/client';
import { deviceClassValues, type paths } from '../api/schema';
import { DIMENSION_LABELS, displayValue, isDimension } from '../dimensions';
import { Empty, ErrorNotice, Loading, useAction, useAsync } from './ui';

type SortType = Schemas['SortType'];
/** A field range groups and filters by (the click dimensions among them). */
export type GroupField = Schemas['RangeGroupField'];
/** Filters of range (one value each), typed as the API takes them (a device is one of its classes). */
export type Filters = Partial<
  Pick<NonNullable<paths['/stats/range.json']['post']['parameters']['query']>, GroupField>
>;

export interface StatsScope {
  key: string;
  start_date: string;
  end_date: string;
  filters: Filters;
  /** Whose clicks and conversions they are (docs/api.md, "Share chains (extension)"); last by default. */
  attribution?: Attribution;
}

/** The filters with one set, or removed (null, '', or a device that is none of the classes). */
export function withFilter(filters: Filters, field: GroupField, value: string | null): Filters {
  const next: Record<string, string> = { ...filters };
  const device =
    field !== 'device' || (deviceClassValues as readonly string[]).includes(value ?? '');
  if (value === null || value === '' || !device) delete next[field];
  else next[field] = value;
  return next;
}

/**
 * The query every range request of a scope starts with: the key, the period, the filters and, for
 * first-share attribution only, `attribution=first` (without it the answer is as it always was).
 */
export function scopeQuery(scope: StatsScope, groupBy?: GroupField) {
  return {
    v: '3' as const,
    key: scope.key,
    start_date: scope.start_date,
    end_date: scope.end_date,
    ...scope.filters,
    ...(attributionOf(scope, groupBy) === 'first' ? { attribution: 'first' as const } : {}),
  };
}

/**
 * The attribution a query of the scope uses: the chosen one, but always the link clicked when the
 * query groups or filters by a click dimension (first-share attribution credits a cascade's root,
 * and click dimensions belong to the click, not to a link: the API takes link attributes only).
 */
export function attributionOf(scope: StatsScope, groupBy?: GroupField): Attribution {
  return scope.attribution === 'first' && !clicksOnly(scope, groupBy) ? 'first' : 'last';
}

/** Whether a query counts clicks only: grouped or filtered by a click dimension (no shares then). */
export function clicksOnly(scope: StatsScope, groupBy?: GroupField): boolean {
  return (
    (groupBy !== undefined && isDimension(groupBy)) || Object.keys(scope.filters).some(isDimension)
  );
}

interface Column {
  sort: SortType;
  label: string;
  /** The label as a heading: soft hyphens where a narrow column breaks a long word. */
  heading?: string;
  value: (g: GroupObject) => number;
}

/** Shares belong to links: a column of them is left out of clicks-only queries. */
const SHARE_SORTS: SortType[] = ['shares', 'clicks_per_share'];

const COLUMNS: Column[] = [
  { sort: 'clicks', label: 'Clicks', value: (g) => g.clicks },
  // null in clicks-only answers, where these two columns are not shown.
  { sort: 'shares', label: 'Shares', value: (g) => g.shares ?? 0 },
  { sort: 'clicks_per_share', label: 'Clicks per share', value: (g) => g.clicks_per_share ?? 0 },
  {
    sort: 'pageviews',
    label: 'Pageviews',
    heading: 'Page\u00ADviews',
    value: (g) => g.conversions?.pageviews ?? 0,
  },
  {
    sort: 'goal_total_count',
    label: 'Conversions',
    heading: 'Conver\u00ADsions',
    value: (g) => g.conversions?.goal_total.count ?? 0,
  },
  { sort: 'goal_total_value', label: 'Value', value: (g) => g.conversions?.goal_total.value ?? 0 },
];

/** The columns of a table: without shares when the query counts clicks only. */
function columnsOf(scope: StatsScope, groupBy: GroupField): Column[] {
  return clicksOnly(scope, groupBy)
    ? COLUMNS.filter((c) => !SHARE_SORTS.includes(c.sort))
    : COLUMNS;
}

const PER_PAGE = 10;

/** One page of stats/range.json grouped by a field, sorted and paginated by the API. */
async function fetchPage(
  scope: StatsScope,
  groupBy: GroupField,
  sort: SortType,
  order: 'asc' | 'desc',
  page: number,
  perPage: number,
): Promise<AggregateResponse> {
  return call(
    api.POST('/stats/range.json', {
      params: {
        query: {
          ...scopeQuery(scope, groupBy),
          group_by: groupBy,
          sort_type: sort,
          sort_order: order,
          page,
          per_page: perPage,
          with_conversions: 'true',
        },
      },
    }),
  );
}

function label(value: unknown): string {
  if (value === null || value === undefined) return '(none)';
  return typeof value === 'string' || typeof value === 'number'
    ? String(value)
    : JSON.stringify(value);
}

/** Every group of a query (all pages, 1,000 a request), in the order asked. */
export async function fetchAllGroups(
  scope: StatsScope,
  groupBy: GroupField,
  sort: SortType = 'clicks',
  order: 'asc' | 'desc' = 'desc',
): Promise<GroupObject[]> {
  const groups: GroupObject[] = [];
  for (let page = 1; ; page++) {
    const answer = await fetchPage(scope, groupBy, sort, order, page, 1000);
    groups.push(...answer.groups);
    if (groups.length >= answer.total_results || answer.groups.length === 0) return groups;
  }
}

/** The CSV of every group (all pages), the columns as in the table, values as the API has them. */
export async function exportCsv(
  scope: StatsScope,
  groupBy: GroupField,
  sort: SortType,
  order: 'asc' | 'desc',
): Promise<string> {
  const groups = await fetchAllGroups(scope, groupBy, sort, order);
  const columns = columnsOf(scope, groupBy);
  const quote = (text: string) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const header = [groupBy, ...columns.map((c) => c.sort)];
  const lines = groups.map((g) =>
    [quote(label(g[groupBy])), ...columns.map((c) => String(c.value(g)))].join(','),
  );
  return [header.join(','), ...lines].join('\n') + '\n';
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

interface Props {
  title: string;
  groupBy: GroupField;
  scope: StatsScope;
  /** Makes a group value a filter of the whole dashboard. */
  onFilter?: (value: string) => void;
  /** A link to a group's own page (links). */
  linkTo?: (value: string) => string;
  /** Shown beside the table (the world map of the countries). */
  aside?: ComponentChildren;
  /** Shown under the table (an attribution). */
  footer?: ComponentChildren;
  /** Spans the dashboard's columns (the links, whose values are long). */
  wide?: boolean;
}

/** The group column's heading. */
function columnName(groupBy: GroupField): string {
  if (isDimension(groupBy)) return DIMENSION_LABELS[groupBy].name;
  return groupBy === 'svc_id' ? 'Link' : groupBy.replace('_id', '');
}

/** Top groups with their clicks, conversions and values: sortable and paginated by the API, exportable as CSV. */
export function StatsTable({
  title,
  groupBy,
  scope,
  onFilter,
  linkTo,
  aside,
  footer,
  wide = aside !== undefined,
}: Props) {
  const [chosenSort, setSort] = useState<SortType>('clicks');
  const [order, setOrder] = useState<'asc' | 'desc'>('desc');
  const [page, setPage] = useState(1);
  const columns = columnsOf(scope, groupBy);
  // A share sort chosen before a click dimension filter came in is refused by the API: by clicks then.
  const sort =
    chosenSort === 'alpha' || columns.some((c) => c.sort === chosenSort) ? chosenSort : 'clicks';
  const scopeKey = JSON.stringify(scope);
  const data = useAsync(
    () => fetchPage(scope, groupBy, sort, order, page, PER_PAGE),
    [scopeKey, groupBy, sort, order, page],
  );
  const csv = useAction(async () =>
    download(
      `svc-${groupBy}-${scope.start_date.slice(0, 10)}-${scope.end_date.slice(0, 10)}.csv`,
      await exportCsv(scope, groupBy, sort, order),
    ),
  );
  const id = `table-${groupBy}`;
  const total = data.data?.total_results ?? 0;
  const pages = Math.max(1, Math.ceil(total / PER_PAGE));
  const sortBy = (s: SortType) => {
    if (s === sort) setOrder(order === 'desc' ? 'asc' : 'desc');
    else {
      setSort(s);
      setOrder('desc');
    }
    setPage(1);
  };
  const body =
    data.loading && !data.data ? (
      <Loading />
    ) : !data.data || data.data.groups.length === 0 ? (
      <Empty>No activity in this period.</Empty>
    ) : (
      <>
        <div class="table-wrap">
          <table class="data stats" aria-labelledby={`${id}-title`} aria-busy={data.loading}>
            <thead>
              <tr>
                <th
                  scope="col"
                  aria-sort={
                    sort === 'alpha' ? (order === 'asc' ? 'ascending' : 'descending') : undefined
                  }
                >
                  <button type="button" class="sort" onClick={() => sortBy('alpha')}>
                    {columnName(groupBy)}
                  </button>
                </th>
                {columns.map((c) => (
                  <th
                    scope="col"
                    key={c.sort}
                    class="num"
                    aria-sort={
                      sort === c.sort ? (order === 'asc' ? 'ascending' : 'descending') : undefined
                    }
                  >
                    <button type="button" class="sort" onClick={() => sortBy(c.sort)}>
                      {c.heading ?? c.label}
                      {sort === c.sort ? (order === 'desc' ? ' ▼' : ' ▲') : ''}
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.data.groups.map((g) => {
                const raw = g[groupBy];
                const value = label(raw);
                const shown = displayValue(groupBy, raw);
                return (
                  <tr key={value} data-value={raw === null ? undefined : value}>
                    <th
                      scope="row"
                      class={linkTo ? 'one-line' : isDimension(groupBy) ? 'wrap' : 'break'}
                    >
                      {linkTo && raw !== null ? (
                        <a href={linkTo(value)} title={value}>
                          {shown}
                        </a>
                      ) : onFilter && raw !== null ? (
                        <button
                          type="button"
                          class="link-button"
                          onClick={() => onFilter(value)}
                          title={`Filter by ${columnName(groupBy).toLowerCase()} ${shown}`}
                        >
                          {shown}
                        </button>
                      ) : (
                        shown
                      )}
                    </th>
                    {columns.map((c) => (
                      <td class="num" key={c.sort} data-label={c.label}>
                        {c.value(g).toLocaleString()}
                      </td>
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <nav class="pager" aria-label={`${title} pages`}>
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
      class={wide ? 'card stats-table wide' : 'card stats-table'}
      aria-labelledby={`${id}-title`}
      data-group-by={groupBy}
    >
      <div class="card-head">
        <h2 id={`${id}-title`}>{title}</h2>
        <button type="button" onClick={() => void csv.run()} disabled={csv.pending}>
          {csv.pending ? 'Exporting…' : 'Export CSV'}
          <span class="visually-hidden"> of {title}</span>
        </button>
      </div>
      <ErrorNotice error={csv.error} />
      <ErrorNotice error={data.error} />
      {aside ? (
        <div class="split">
          <div class="split-aside">{aside}</div>
          <div>{body}</div>
        </div>
      ) : (
        body
      )}
      {scope.attribution === 'first' && attributionOf(scope, groupBy) === 'last' && (
        <p class="muted">
          By the link clicked: first-share attribution credits links’ attributes, not visitors’.
        </p>
      )}
      {footer}
    </section>
  );
}

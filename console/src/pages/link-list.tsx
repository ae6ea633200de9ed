import { useEffect, useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client';
import { knownChannelValues } from '../api/schema';
import { ControlBadges, controlBadges, dateTime } from '../components/control-badges';
import { Empty, ErrorNotice, Field, Loading, field, useAsync } from '../components/ui';
import { href, navigate } from '../router';
import { projectKey } from './project';

/** A link of the list: the link record plus its all-time clicks. */
export type ListedLink = Schemas['LinkListItemDto'];
type SortType = 'created_at' | 'clicks';
type Order = 'asc' | 'desc';

/** The link filters the list offers (the API takes more), in the API's names. */
const FILTERS = [
  ['channel', 'Channel', 'e.g. twitter'],
  ['campaign', 'Campaign', 'As stored, e.g. spring_sale'],
  ['tag', 'Tag', undefined],
  ['domain', 'Domain', 'e.g. go.example.com'],
] as const;
type FilterName = (typeof FILTERS)[number][0];

/** What the list shows: kept in the page's address (no key there), so Back returns to it. */
export interface ListQuery {
  search: string;
  filters: Partial<Record<FilterName, string>>;
  sort: SortType;
  order: Order;
  page: number;
  perPage: number;
}

const PER_PAGES = [10, 25, 50, 100];
const SORTS: [`${SortType} ${Order}`, string][] = [
  ['created_at desc', 'Newest first'],
  ['created_at asc', 'Oldest first'],
  ['clicks desc', 'Most clicked first'],
  ['clicks asc', 'Fewest clicks first'],
];
const DEFAULT: ListQuery = {
  search: '',
  filters: {},
  sort: 'created_at',
  order: 'desc',
  page: 1,
  perPage: 10,
};

/** The list's query from an address's search part (anything unknown or out of range: the default). */
export function queryOf(search: string): ListQuery {
  const params = new URLSearchParams(search);
  const filters: ListQuery['filters'] = {};
  for (const [name] of FILTERS) {
    const value = params.get(name)?.trim();
    if (value) filters[name] = value;
  }
  const page = Number(params.get('page'));
  const perPage = Number(params.get('per_page'));
  return {
    search: params.get('search')?.trim() ?? '',
    filters,
    sort: params.get('sort') === 'clicks' ? 'clicks' : 'created_at',
    order: params.get('order') === 'asc' ? 'asc' : 'desc',
    page: Number.isInteger(page) && page > 1 ? page : 1,
    perPage: PER_PAGES.includes(perPage) ? perPage : DEFAULT.perPage,
  };
}

/** The search part of the list's address ('' for the default list). */
export function searchOf(query: ListQuery): string {
  const params = new URLSearchParams();
  if (query.search) params.set('search', query.search);
  for (const [name] of FILTERS) {
    const value = query.filters[name];
    if (value) params.set(name, value);
  }
  if (query.sort !== DEFAULT.sort) params.set('sort', query.sort);
  if (query.order !== DEFAULT.order) params.set('order', query.order);
  if (query.page !== 1) params.set('page', String(query.page));
  if (query.perPage !== DEFAULT.perPage) params.set('per_page', String(query.perPage));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The list as last shown, for a link page's way back. */
let lastSearch = '';

/** The Links page's address with the list as last shown. */
export function linksHref(): string {
  return href(`/links${lastSearch}`);
}

function linkHref(svcId: string): string {
  return href(`/links/${encodeURIComponent(svcId)}`);
}

/** One page of the project's links from url/list.json. */
function fetchLinks(key: string, query: ListQuery) {
  return call(
    api.POST('/url/list.{format}', {
      params: {
        path: { format: 'json' },
        query: {
          v: '3',
          key,
          ...(query.search ? { search: query.search } : {}),
          ...query.filters,
          sort_type: query.sort,
          sort_order: query.order,
          per_page: query.perPage,
          page: query.page,
        },
      },
    }),
  );
}

/**
 * The project's links: a search box, filters, sort and pages (all answered by the API), each row
 * opening its link page. `version` changes when links were created, to show them.
 */
export function LinkList({ version }: { version: number }) {
  const key = projectKey();
  const [query, setQuery] = useState<ListQuery>(() => queryOf(window.location.search));
  /** Bumped to empty the form's fields ("Clear search and filters"). */
  const [formKey, setFormKey] = useState(0);
  useEffect(() => {
    lastSearch = searchOf(query);
    window.history.replaceState(window.history.state, '', href(`/links${lastSearch}`));
  }, [query]);
  const list = useAsync(() => fetchLinks(key, query), [JSON.stringify(query), version]);
  const total = list.data?.total_results ?? 0;
  const pages = Math.max(1, Math.ceil(total / query.perPage));
  const searched = query.search !== '' || Object.keys(query.filters).length > 0;
  const change = (next: Partial<ListQuery>) => setQuery((q) => ({ ...q, page: 1, ...next }));
  const sortBy = (sort: SortType) =>
    change({ sort, order: sort === query.sort && query.order === 'desc' ? 'asc' : 'desc' });
  const ariaSort = (sort: SortType) =>
    query.sort === sort ? (query.order === 'asc' ? 'ascending' : 'descending') : undefined;
  const arrow = (sort: SortType) =>
    query.sort === sort ? (query.order === 'desc' ? ' ▼' : ' ▲') : '';
  return (
    <section class="card link-list" aria-labelledby="list-title">
      <h2 id="list-title">Links of the project</h2>
      <form
        key={formKey}
        role="search"
        aria-label="Search and filter the links"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const filters: ListQuery['filters'] = {};
          for (const [name] of FILTERS) {
            const value = field(form, name);
            if (value) filters[name] = value;
          }
          change({ search: field(form, 'search'), filters });
        }}
      >
        <div class="grid">
          <Field id="list-search" label="Search" hint="Words in the URL, notes, tag or campaign">
            <input
              id="list-search"
              name="search"
              type="search"
              defaultValue={query.search}
              aria-describedby="list-search-hint"
            />
          </Field>
          <Field id="list-sort" label="Sort">
            <select
              id="list-sort"
              value={`${query.sort} ${query.order}`}
              onChange={(e) => {
                const [sort, order] = e.currentTarget.value.split(' ') as [SortType, Order];
                change({ sort, order });
              }}
            >
              {SORTS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
          <Field id="list-per-page" label="Links a page">
            <select
              id="list-per-page"
              value={String(query.perPage)}
              onChange={(e) => change({ perPage: Number(e.currentTarget.value) })}
            >
              {PER_PAGES.map((n) => (
                <option key={n}>{n}</option>
              ))}
            </select>
          </Field>
        </div>
        <details open={Object.keys(query.filters).length > 0}>
          <summary>Filters: channel, campaign, tag, domain</summary>
          <div class="grid">
            {FILTERS.map(([name, label, hint]) => (
              <Field id={`list-${name}`} label={`${label} filter`} hint={hint} key={name}>
                <input
                  id={`list-${name}`}
                  name={name}
                  defaultValue={query.filters[name] ?? ''}
                  list={name === 'channel' ? 'list-channels' : undefined}
                  aria-describedby={hint ? `list-${name}-hint` : undefined}
                />
              </Field>
            ))}
            <datalist id="list-channels">
              {knownChannelValues.map((c) => (
                <option key={c} value={c} />
              ))}
            </datalist>
          </div>
        </details>
        <div class="actions">
          <button type="submit">Search</button>
          {searched && (
            <button
              type="button"
              class="secondary"
              onClick={() => {
                change({ search: '', filters: {} });
                setFormKey((k) => k + 1);
              }}
            >
              Clear search and filters
            </button>
          )}
        </div>
      </form>
      <ErrorNotice error={list.error} />
      {list.loading && !list.data ? (
        <Loading label="Loading the links…" />
      ) : !list.data ? null : list.data.links.length === 0 ? (
        <Empty>
          {searched
            ? 'No link matches this search and these filters.'
            : query.page > 1
              ? 'No link on this page.'
              : 'No link yet: create the first one below.'}
        </Empty>
      ) : (
        <div class="table-wrap">
          <table class="data stacked" aria-labelledby="list-title" aria-busy={list.loading}>
            <thead>
              <tr>
                <th scope="col">Short link</th>
                <th scope="col">Goes to</th>
                <th scope="col">Channel</th>
                <th scope="col">Campaign</th>
                <th scope="col" aria-sort={ariaSort('created_at')}>
                  <button type="button" class="sort" onClick={() => sortBy('created_at')}>
                    Created{arrow('created_at')}
                  </button>
                </th>
                <th scope="col" class="num" aria-sort={ariaSort('clicks')}>
                  <button type="button" class="sort" onClick={() => sortBy('clicks')}>
                    Clicks{arrow('clicks')}
                  </button>
                </th>
                <th scope="col">Controls</th>
              </tr>
            </thead>
            <tbody>
              {list.data.links.map((link) => (
                <LinkRow key={link.svc_id} link={link} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && total > 0 && (
        <nav class="pager" aria-label="Pages of links">
          <button
            type="button"
            onClick={() => setQuery((q) => ({ ...q, page: q.page - 1 }))}
            disabled={query.page <= 1}
          >
            Previous
          </button>
          <span role="status">
            Page {query.page} of {pages} ({total.toLocaleString()} in all)
          </span>
          <button
            type="button"
            onClick={() => setQuery((q) => ({ ...q, page: q.page + 1 }))}
            disabled={query.page >= pages}
          >
            Next
          </button>
        </nav>
      )}
    </section>
  );
}

/** A link's row: the short link opens its page (so does a click anywhere else on the row). */
function LinkRow({ link }: { link: ListedLink }) {
  const to = linkHref(link.svc_id);
  return (
    <tr
      data-svc-id={link.svc_id}
      class="linked"
      onClick={(e) => {
        const target = e.target as HTMLElement;
        // A link or button of the row does its own thing; so does selecting text.
        if (target.closest('a, button') || window.getSelection()?.toString()) return;
        navigate(`/links/${encodeURIComponent(link.svc_id)}`);
      }}
    >
      <th scope="row" class="break">
        <a href={to}>{link.svc_url.replace(/^https?:\/\//, '')}</a>
      </th>
      <td class="break" data-label="Goes to">
        {link.redirect_url}
      </td>
      <td data-label="Channel">{link.channel ?? '—'}</td>
      <td data-label="Campaign">{link.campaign ?? '—'}</td>
      <td data-label="Created">
        <time dateTime={link.created_at}>{dateTime(link.created_at)}</time>
      </td>
      <td class="num" data-label="Clicks">
        {link.clicks.toLocaleString()}
      </td>
      <td
        data-label="Controls"
        class={controlBadges(link, link.clicks).length ? '' : 'no-controls'}
      >
        <ControlBadges link={link} clicks={link.clicks} />
      </td>
    </tr>
  );
}

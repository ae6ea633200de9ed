import { Errors } from '../../common/app-error';
import { Paging, RawParams, readPaging, readSortOrder, single } from '../../common/params';
import { LINK_FILTERS, LinkFilter, linkFilterValue, readFilters } from './link-filters';

/**
 * The parameters of url/list.{format} (docs/api.md, "Listing links"), read and checked: every
 * name from a whitelist, every value to be bound. The link filters are those statistics take on
 * range and totals (link-filters.ts, which statistics import too).
 */

export const LINK_LIST_SORT_TYPES = ['created_at', 'clicks'] as const;
export type LinkListSortType = (typeof LINK_LIST_SORT_TYPES)[number];
export type LinkListSortOrder = 'asc' | 'desc';

/** `search`: at most this many characters, split on white space into at most this many words. */
export const SEARCH_MAX_LENGTH = 4096;
export const SEARCH_MAX_WORDS = 10;

/** A url/list request, checked (paging as statistics page). */
export interface LinkListQuery extends Paging {
  filters: Partial<Record<LinkFilter, string>>;
  /** The search's words (distinct, in order); none without a search. */
  search: string[];
  sortType: LinkListSortType;
  sortOrder: LinkListSortOrder;
}

/** The link filters the request gives, checked as statistics check them (link-filters.ts). */
function readListFilters(params: RawParams): LinkListQuery['filters'] {
  return readFilters(params, LINK_FILTERS, linkFilterValue);
}

/** The words of `search`: split on white space, each once, at most SEARCH_MAX_WORDS. */
function readSearch(params: RawParams): string[] {
  const search = single(params, 'search', SEARCH_MAX_LENGTH);
  if (search === undefined) return [];
  const words = [...new Set(search.split(/\s+/).filter((word) => word !== ''))];
  if (words.length > SEARCH_MAX_WORDS) {
    throw Errors.invalid('search', `takes at most ${SEARCH_MAX_WORDS} words`);
  }
  return words;
}

function readSortType(params: RawParams): LinkListSortType {
  const value = single(params, 'sort_type', 32) ?? 'created_at';
  if (!(LINK_LIST_SORT_TYPES as readonly string[]).includes(value)) {
    throw Errors.invalid('sort_type', `must be one of ${LINK_LIST_SORT_TYPES.join(', ')}`);
  }
  return value as LinkListSortType;
}

/**
 * The whole request after `v` and `key` (ProjectKeyGuard): the filters, `search`, `sort_type`,
 * `sort_order`, then paging as statistics page: `per_page` (10, at most 1000), `page` from 1, or
 * `offset`, which overrides page.
 */
export function readLinkListQuery(params: RawParams): LinkListQuery {
  const filters = readListFilters(params);
  const search = readSearch(params);
  const sortType = readSortType(params);
  const sortOrder = readSortOrder(params, 'sort_order');
  return { filters, search, sortType, sortOrder, ...readPaging(params) };
}

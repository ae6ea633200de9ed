import { Errors } from '../common/app-error';
import { RawParams, readInt, single } from '../common/params';
import { normaliseLinkHost } from '../common/validators';

/**
 * The parameters of url/list.{format} (docs/api.md, "Listing links"), read and checked: every
 * name from a whitelist, every value to be bound. The link filters are those statistics take on
 * range and totals, under the same names, lengths and checks (src/stats/stats-fields.ts and
 * stats-query.ts's readFilters); they are written out again here rather than imported, because
 * stats/ depends on links/ and the dependency runs one way. test/e2e/links-list.e2e-spec.ts checks
 * that the two lists agree.
 */

/** Link attributes filtered by equality (a tool by its key or its label). */
export const LINK_LIST_FIELDS = [
  'application',
  'svc_id',
  'campaign',
  'channel',
  'domain',
  'original_url',
  'parent',
  'service',
  'service_postid',
  'service_userid',
  'sharer_id',
  'tag',
  'tool',
  'user_id',
  'username',
] as const;

/** The link's shared time (its post's, else its creation) in UTC: ISO weeks, Monday is day 0. */
export const LINK_LIST_SHARED_AT_FIELDS = {
  shared_at_hour_of_day: 23,
  shared_at_day_of_week: 6,
  shared_at_hour_of_week: 167,
} as const;

/** Multi-value tags: a link matches when the value is one of its values. */
export const LINK_LIST_MULTI_TAG_FIELDS = ['tag_2', 'tag_3', 'tag_4', 'tag_5'] as const;

export type LinkListField = (typeof LINK_LIST_FIELDS)[number];
export type LinkListSharedAtField = keyof typeof LINK_LIST_SHARED_AT_FIELDS;
export type LinkListMultiTagField = (typeof LINK_LIST_MULTI_TAG_FIELDS)[number];
export type LinkListFilter = LinkListField | LinkListSharedAtField | LinkListMultiTagField;

/** Every filter parameter, in the order they are read (and so checked). */
export const LINK_LIST_FILTERS: readonly LinkListFilter[] = [
  ...LINK_LIST_FIELDS,
  ...(Object.keys(LINK_LIST_SHARED_AT_FIELDS) as LinkListSharedAtField[]),
  ...LINK_LIST_MULTI_TAG_FIELDS,
];

/** The longest link domain: a hostname (253), `:port` and `_segment` (64), per parseLinkHost. */
const DOMAIN_MAX_LENGTH = 253 + ':65535'.length + '_'.length + 64;
/** The longest svc_id: its domain, `_` and a path of at most 200 characters. */
const SVC_ID_MAX_LENGTH = DOMAIN_MAX_LENGTH + '_'.length + 200;

/**
 * The longest value of each filter, as statistics take it: the longest value its field can hold
 * (url 4096, sharer_id a UUID, svc_id, parent and domain as derived from domains and paths, every
 * other text 255). A longer value is refused (400 naming the parameter).
 */
export const LINK_LIST_FILTER_MAX_LENGTH: Record<LinkListFilter, number> = {
  application: 255,
  svc_id: SVC_ID_MAX_LENGTH,
  campaign: 255,
  channel: 255,
  domain: DOMAIN_MAX_LENGTH,
  original_url: 4096,
  parent: SVC_ID_MAX_LENGTH,
  service: 255,
  service_postid: 255,
  service_userid: 255,
  sharer_id: 36,
  tag: 255,
  tool: 255,
  user_id: 255,
  username: 255,
  shared_at_hour_of_day: 255,
  shared_at_day_of_week: 255,
  shared_at_hour_of_week: 255,
  tag_2: 255,
  tag_3: 255,
  tag_4: 255,
  tag_5: 255,
};

export const LINK_LIST_SORT_TYPES = ['created_at', 'clicks'] as const;
export type LinkListSortType = (typeof LINK_LIST_SORT_TYPES)[number];
export type LinkListSortOrder = 'asc' | 'desc';

/** `search`: at most this many characters, split on white space into at most this many words. */
export const SEARCH_MAX_LENGTH = 4096;
export const SEARCH_MAX_WORDS = 10;

/** per_page's default and maximum, and the bounds of page and offset, as statistics have them. */
export const LINK_LIST_PER_PAGE = 10;
export const LINK_LIST_MAX_PER_PAGE = 1000;
const MAX_PAGE = 1_000_000;
const MAX_OFFSET = 100_000_000;

/** A url/list request, checked. */
export interface LinkListQuery {
  filters: Partial<Record<LinkListFilter, string>>;
  /** The search's words (distinct, in order); none without a search. */
  search: string[];
  sortType: LinkListSortType;
  sortOrder: LinkListSortOrder;
  /** The page asked for; null when `offset` was given. */
  page: number | null;
  perPage: number;
  offset: number;
}

export function isSharedAtFilter(name: string): name is LinkListSharedAtField {
  return name in LINK_LIST_SHARED_AT_FIELDS;
}

export function isMultiTagFilter(name: string): name is LinkListMultiTagField {
  return (LINK_LIST_MULTI_TAG_FIELDS as readonly string[]).includes(name);
}

/**
 * The filters the request gives, checked and normalised as statistics' readFilters does: one
 * value each, at most its field's length, shared_at_* an integer in its range, a domain's host in
 * lower case (its `_segment` as connected). An empty value is no filter.
 */
export function readListFilters(params: RawParams): LinkListQuery['filters'] {
  const filters: LinkListQuery['filters'] = {};
  for (const name of LINK_LIST_FILTERS) {
    const raw = params[name];
    if (raw === undefined || raw === '') continue;
    const values = Array.isArray(raw) ? raw : [raw];
    if (values.length !== 1 || typeof values[0] !== 'string') {
      throw Errors.invalid(name, 'takes one value per request');
    }
    const value = values[0];
    const maxLength = LINK_LIST_FILTER_MAX_LENGTH[name];
    if (value.length > maxLength) {
      throw Errors.invalid(name, `must be at most ${maxLength} characters`);
    }
    if (isSharedAtFilter(name)) {
      const max = LINK_LIST_SHARED_AT_FIELDS[name];
      if (!/^\d+$/.test(value) || Number(value) > max)
        throw Errors.invalid(name, `must be an integer from 0 to ${max}`);
    }
    filters[name] = name === 'domain' ? normaliseLinkHost(value) : value;
  }
  return filters;
}

/** The words of `search`: split on white space, each once, at most SEARCH_MAX_WORDS. */
export function readSearch(params: RawParams): string[] {
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

function readSortOrder(params: RawParams): LinkListSortOrder {
  const value = (single(params, 'sort_order', 10) ?? 'desc').toLowerCase();
  if (value !== 'asc' && value !== 'desc')
    throw Errors.invalid('sort_order', 'must be asc or desc');
  return value;
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
  const sortOrder = readSortOrder(params);
  const perPage = readInt(params, 'per_page', LINK_LIST_PER_PAGE, 1, LINK_LIST_MAX_PER_PAGE);
  const offsetGiven = single(params, 'offset', 12) !== undefined;
  const page = offsetGiven ? null : readInt(params, 'page', 1, 1, MAX_PAGE);
  const offset = offsetGiven ? readInt(params, 'offset', 0, 0, MAX_OFFSET) : (page! - 1) * perPage;
  return { filters, search, sortType, sortOrder, page, perPage, offset };
}

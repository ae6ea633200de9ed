import { Errors } from '../common/app-error';
import { RawParams, bool, readPaging, readSortOrder, single } from '../common/params';
import { DEVICE_CLASSES } from '../enrichment/user-agent';
import { linkFilterValue, readFilters } from '../links/list/link-filters';
import {
  DIMENSION_FIELDS,
  FILTER_MAX_LENGTH,
  FilterField,
  GroupField,
  LINK_FIELDS,
  MULTI_TAG_FIELDS,
  SHARED_AT_RANGE,
  SORT_TYPES_BASE,
  conversionSortTypes,
  isDimensionField,
  usesDimensions,
} from './stats-fields';
import { readPeriod, readSwitches } from './stats-params';

export type StatsKind = 'range' | 'totals';
export type SortOrder = 'asc' | 'desc';

/** A range or totals request, checked: every name from a whitelist, every value to be bound. */
export interface StatsQuery {
  kind: StatsKind;
  start: Date | null;
  end: Date | null;
  filters: Partial<Record<FilterField, string>>;
  groupBy: GroupField | null;
  pivot: GroupField | null;
  sortType: string;
  sortOrder: SortOrder;
  pivotSortType: string;
  pivotSortOrder: SortOrder;
  page: number | null;
  perPage: number;
  offset: number;
  withConversions: boolean;
  withMetadata: boolean;
  withZeros: boolean;
  withBots: boolean;
  /** with_chain=true (**extension**; docs/api.md, "Share chains"): the chain figures of each row. */
  withChain: boolean;
  /** attribution (**extension**): `last`, the clicked link (default), or `first`, its root. */
  attribution: Attribution;
  /** Which of with_chain and attribution the request gave: only those are echoed. */
  chainParams: ChainParam[];
}

export type Attribution = 'last' | 'first';
export type ChainParam = 'with_chain' | 'attribution';

/** Sort types over the chain figures (need with_chain=true). */
export const CHAIN_SORT_TYPES = ['chain_clicks', 'chain_shares', 'amplification'];

/**
 * `with_chain` and `attribution` (docs/api.md, "Share chains"), with which of them were given. They
 * count links' descendants and roots, so they group by link attributes only: by a click dimension
 * (group, pivot or filter) they answer 400, as they do together (chain figures are the
 * descendants' own clicks, the clicked links': attribution=last).
 */
export function readChainParams(
  params: RawParams,
  byDimensions: boolean,
): { withChain: boolean; attribution: Attribution; chainParams: ChainParam[] } {
  const withChain = bool(params, 'with_chain', false);
  const attribution = readAttribution(params);
  const chainParams: ChainParam[] = [];
  if (params.with_chain !== undefined) chainParams.push('with_chain');
  if (params.attribution !== undefined) chainParams.push('attribution');
  for (const name of chainParams) {
    const used = name === 'with_chain' ? withChain : attribution === 'first';
    if (used && byDimensions)
      throw Errors.invalid(name, 'takes link attributes only, not click dimensions');
  }
  if (withChain && attribution === 'first')
    throw Errors.invalid('attribution', 'must be last with with_chain=true');
  return { withChain, attribution, chainParams };
}

/** `attribution`: last (default) or first. */
export function readAttribution(params: RawParams): Attribution {
  const value = single(params, 'attribution', 10) ?? 'last';
  if (value !== 'last' && value !== 'first')
    throw Errors.invalid('attribution', 'must be last or first');
  return value;
}

/**
 * The earliest start_date of each kind (docs/api.md, "Statistics"): totals after 2011-09-01; range
 * has no bound. Link intervals start after 2010-06-04 (INTERVALS_EARLIEST).
 */
export const EARLIEST: Record<StatsKind, Date | null> = {
  range: null,
  totals: new Date('2011-09-01T00:00:00Z'),
};

export const INTERVALS_EARLIEST = new Date('2010-06-04T00:00:00Z');

/** The most project keys one totals request takes (key[]; docs/api.md, "Statistics"). */
export const MAX_TOTALS_KEYS = 100;

/** The filter parameters of range (and, with tag_2 … tag_5, of totals), click dimensions last. */
export function filterNames(kind: StatsKind): string[] {
  return [
    ...Object.keys(LINK_FIELDS),
    ...Object.keys(SHARED_AT_RANGE),
    ...(kind === 'totals' ? MULTI_TAG_FIELDS : []),
    ...DIMENSION_FIELDS,
  ];
}

/**
 * A click-dimension filter's value as the store holds it (docs/api.md, "Click dimensions"): a
 * country is two letters (compared upper case), a device one of DEVICE_CLASSES, a referring host
 * compares in lower case; 400 naming the parameter otherwise.
 */
export function dimensionValue(name: string, value: string): string {
  if (name === 'country') {
    if (!/^[A-Za-z]{2}$/.test(value))
      throw Errors.invalid(name, 'must be a two-letter ISO 3166-1 country code');
    return value.toUpperCase();
  }
  if (name === 'device') {
    if (!(DEVICE_CLASSES as readonly string[]).includes(value))
      throw Errors.invalid(name, `must be one of ${DEVICE_CLASSES.join(', ')}`);
    return value;
  }
  return name === 'referrer_host' ? value.toLowerCase() : value;
}

/** Sort types that read shares: refused where shares are null (a request by click dimensions). */
const SHARE_SORTS = ['shares', 'clicks_per_share'];

/** Fields group_by and pivot accept: filters (not domain on totals), shared_at_*, and project on totals. */
function groupNames(kind: StatsKind, multiProject: boolean): string[] {
  return groupFields(kind, multiProject);
}

/** Every group_by/pivot value of an endpoint (project only with key[] on totals). */
export function groupFields(kind: StatsKind, multiProject = true): string[] {
  const names = filterNames(kind);
  if (kind === 'range') return names;
  return [...names.filter((name) => name !== 'domain'), ...(multiProject ? ['project'] : [])];
}

/**
 * The filters of `names` the request gives, checked and normalised (400 naming the parameter): link
 * filters as link-filters.ts checks them, click dimensions at most their length (FILTER_MAX_LENGTH)
 * and then as dimensionValue says.
 */
export function readStatsFilters(
  params: RawParams,
  names: readonly string[],
): StatsQuery['filters'] {
  return readFilters(params, names as FilterField[], (name, value) => {
    if (!isDimensionField(name)) return linkFilterValue(name, value);
    const maxLength = FILTER_MAX_LENGTH[name];
    if (value.length > maxLength)
      throw Errors.invalid(name, `must be at most ${maxLength} characters`);
    return dimensionValue(name, value);
  });
}

/** The filters of link intervals: the click dimensions (**extension**). */
export function readDimensionFilters(params: RawParams): StatsQuery['filters'] {
  return readStatsFilters(params, DIMENSION_FIELDS);
}

export function readStatsQuery(
  params: RawParams,
  kind: StatsKind,
  multiProject: boolean,
): StatsQuery {
  const period = readPeriod(params, { required: false, earliest: EARLIEST[kind] });
  const switches = readSwitches(params);
  const filters = readStatsFilters(params, filterNames(kind));
  const groups = groupNames(kind, multiProject);
  const groupBy = single(params, 'group_by', 64) ?? null;
  if (groupBy !== null && !groups.includes(groupBy)) {
    throw Errors.invalid('group_by', `must be one of ${groups.join(', ')}`);
  }
  const pivot = single(params, 'pivot', 64) ?? null;
  if (pivot !== null) {
    if (!groups.includes(pivot))
      throw Errors.invalid('pivot', `must be one of ${groups.join(', ')}`);
    if (groupBy === null) throw Errors.invalid('pivot', 'needs group_by');
    if (pivot === groupBy) throw Errors.invalid('pivot', 'cannot be the group_by field');
    if (pivot in filters) throw Errors.invalid('pivot', 'cannot be a filtered field');
  }
  const goals = kind === 'totals' ? 10 : 5;
  const conversionTypes = conversionSortTypes(goals);
  // The chain sorts are an extension: the refusal lists the sort types of the interface, as it did.
  const sortTypes = [...SORT_TYPES_BASE, ...conversionTypes];
  const byDimensions = usesDimensions({ groupBy, pivot, filters });
  const chain = readChainParams(params, byDimensions);
  const readSortType = (name: string): string => {
    const value = single(params, name, 32) ?? 'clicks';
    if (!sortTypes.includes(value) && !CHAIN_SORT_TYPES.includes(value))
      throw Errors.invalid(name, `must be one of ${sortTypes.join(', ')}`);
    if (byDimensions && SHARE_SORTS.includes(value))
      throw Errors.invalid(name, `${value} is null by click dimensions: sort by clicks or alpha`);
    if (conversionTypes.includes(value) && !switches.withConversions) {
      throw Errors.invalid(name, `${value} needs with_conversions=true`);
    }
    if (CHAIN_SORT_TYPES.includes(value) && !chain.withChain)
      throw Errors.invalid(name, `${value} needs with_chain=true`);
    return value;
  };
  const { page, perPage, offset } = readPaging(params);
  return {
    kind,
    start: period.start,
    end: period.end,
    filters,
    groupBy: groupBy as GroupField | null,
    pivot: pivot as GroupField | null,
    sortType: readSortType('sort_type'),
    sortOrder: readSortOrder(params, 'sort_order'),
    pivotSortType: readSortType('pivot_sort_type'),
    pivotSortOrder: readSortOrder(params, 'pivot_sort_order'),
    page,
    perPage,
    offset,
    ...switches,
    ...chain,
  };
}

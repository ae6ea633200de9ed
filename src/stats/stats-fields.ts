import { CLICK_DIMENSION_COLUMNS, ClickDimension } from '../analytics/analytics-schema';
import {
  LINK_FIELDS as LINK_FIELD_NAMES,
  LINK_FILTER_MAX_LENGTH,
  LinkField,
  MULTI_TAG_FIELDS,
  MultiTagField,
  SHARED_AT_RANGE,
  SharedAtField,
  isLinkField,
  isMultiTagField,
  isSharedAtField,
} from '../links/list/link-filters';
import { SHARED_AT_EXPRESSIONS } from '../links/list/link-filter-conditions';

export { MULTI_TAG_FIELDS, SHARED_AT_RANGE, isLinkField, isMultiTagField, isSharedAtField };
export type { LinkField, MultiTagField, SharedAtField };

/**
 * Every link field a stats request may filter, group or pivot on, with its ClickHouse expression over
 * the analytics store's mirror of links (`links`, one row per link's latest version): its own column.
 * Only these identifiers ever reach SQL (STYLE.md: whitelist names, bind values).
 */
export const LINK_FIELDS = Object.fromEntries(LINK_FIELD_NAMES.map((f) => [f, f])) as Record<
  LinkField,
  string
>;

/**
 * Click dimensions (**extension**; docs/api.md, "Click dimensions"): a click's own place, device,
 * browser, operating system and referring site, columns of `clicks` and of `conversions` (a
 * conversion's are its click's) under these names. They filter, group and pivot events, not links.
 */
export const DIMENSION_FIELDS = CLICK_DIMENSION_COLUMNS;

export type DimensionField = ClickDimension;
export type GroupField = LinkField | SharedAtField | MultiTagField | DimensionField | 'project';
export type FilterField = LinkField | SharedAtField | MultiTagField | DimensionField;

/**
 * The longest value of each filter: a link filter's as its field holds it (LINK_FILTER_MAX_LENGTH),
 * a click dimension's as ingestion writes it (a country code, a device class, a hostname).
 */
export const FILTER_MAX_LENGTH: Record<FilterField, number> = {
  ...LINK_FILTER_MAX_LENGTH,
  country: 2,
  region: 255,
  city: 255,
  device: 7,
  browser: 255,
  os: 255,
  referrer_host: 253,
};

/**
 * Link fields whose values every click and conversion carries in its stamp (LINK_STAMP_COLUMNS, under
 * the same column names as in `links`): every link field but those that are one link's own
 * (svc_id, original_url, service_postid), the shared_at fields and the multi-value tags.
 */
const UNSTAMPED_LINK_FIELDS: readonly string[] = ['svc_id', 'original_url', 'service_postid'];

export function isStampedField(name: string): boolean {
  return (
    (isLinkField(name) && !UNSTAMPED_LINK_FIELDS.includes(name)) ||
    isSharedAtField(name) ||
    isMultiTagField(name)
  );
}

export function isDimensionField(name: string): name is DimensionField {
  return (DIMENSION_FIELDS as readonly string[]).includes(name);
}

/**
 * Whether a request groups, pivots or filters by a click dimension: its figures are then the
 * events' alone (shares, a property of links, are null: docs/api.md, "Click dimensions").
 */
export function usesDimensions(query: {
  groupBy?: string | null;
  pivot?: string | null;
  filters: Partial<Record<FilterField, string>>;
}): boolean {
  return [query.groupBy, query.pivot, ...Object.keys(query.filters)].some(
    (field) => typeof field === 'string' && isDimensionField(field),
  );
}

/**
 * The ClickHouse expression of a group or pivot field over the links mirror. `project` groups by
 * the project's API key, the value the response shows (the {project_ids} and {project_keys}
 * parameters map one to the other), so alpha sorts and ties order by it. A multi-value tag field
 * gives the link's array of values: the caller counts the link in the group of each value, and in
 * the null group when it has none.
 */
export function groupExpression(field: GroupField): string {
  if (field === 'project')
    return "transform(toString(project_id), {project_ids:Array(String)}, {project_keys:Array(String)}, '')";
  if (isMultiTagField(field) || isDimensionField(field)) return field;
  return isLinkField(field) ? LINK_FIELDS[field] : SHARED_AT_EXPRESSIONS[field];
}

export const SORT_TYPES_BASE = [
  'clicks',
  'shares',
  'clicks_per_share',
  'alpha',
  'shared_at',
] as const;

/** Conversion sort types: pageviews, goal_n_count/value (n ≤ 5 on range, ≤ 10 on totals), goal_total_*. */
export function conversionSortTypes(goals: number): string[] {
  const types = ['pageviews', 'goal_total_count', 'goal_total_value'];
  for (let n = 1; n <= goals; n++) types.push(`goal_${n}_count`, `goal_${n}_value`);
  return types;
}

/** ClickHouse conditions over `clicks` or `conversions` for the click-dimension filters. */
export function eventConditions(
  filters: Partial<Record<FilterField, string>>,
  bind: (value: unknown, type: string) => string,
): string[] {
  return Object.entries(filters)
    .filter(([name]) => isDimensionField(name))
    .map(([name, value]) => `${name} = ${bind(value, 'String')}`);
}

import { CLICK_DIMENSION_COLUMNS, ClickDimension } from '../analytics/analytics-schema';

/**
 * Every link field a stats request may filter, group or pivot on, with its ClickHouse expression over
 * the analytics store's mirror of links (`links`, one row per link's latest version). Only these
 * identifiers ever reach SQL (STYLE.md: whitelist names, bind values).
 */
export const LINK_FIELDS = {
  application: 'application',
  svc_id: 'svc_id',
  campaign: 'campaign',
  channel: 'channel',
  domain: 'domain',
  original_url: 'original_url',
  parent: 'parent',
  service: 'service',
  service_postid: 'service_postid',
  service_userid: 'service_userid',
  sharer_id: 'sharer_id',
  tag: 'tag',
  tool: 'tool',
  user_id: 'user_id',
  username: 'username',
} as const;

/** shared_at is stored in UTC; ISO 8601 weeks: Monday is day 0, hour 0 of the week is Monday midnight to 1 AM. */
export const SHARED_AT_FIELDS = {
  shared_at_hour_of_day: 'toUInt16(toHour(shared_at))',
  shared_at_day_of_week: 'toUInt16(toDayOfWeek(shared_at) - 1)',
  shared_at_hour_of_week: 'toUInt16((toDayOfWeek(shared_at) - 1) * 24 + toHour(shared_at))',
} as const;

/** Multi-value tag fields of totals: a link matches when the value is one of its values. */
export const MULTI_TAG_FIELDS = ['tag_2', 'tag_3', 'tag_4', 'tag_5'] as const;

/**
 * Click dimensions (**extension**; docs/api.md, "Click dimensions"): a click's own place, device,
 * browser, operating system and referring site, columns of `clicks` and of `conversions` (a
 * conversion's are its click's) under these names. They filter, group and pivot events, not links.
 */
export const DIMENSION_FIELDS = CLICK_DIMENSION_COLUMNS;

export type LinkField = keyof typeof LINK_FIELDS;
export type SharedAtField = keyof typeof SHARED_AT_FIELDS;
export type MultiTagField = (typeof MULTI_TAG_FIELDS)[number];
export type DimensionField = ClickDimension;
export type GroupField = LinkField | SharedAtField | MultiTagField | DimensionField | 'project';
export type FilterField = LinkField | SharedAtField | MultiTagField | DimensionField;

/** The longest link domain: a hostname (253), `:port` and `_segment` (64), per parseLinkHost. */
const DOMAIN_MAX_LENGTH = 253 + ':65535'.length + '_'.length + 64;

/** The longest svc_id: its domain, `_` and a path of at most 200 characters (isValidCustomPath). */
const SVC_ID_MAX_LENGTH = DOMAIN_MAX_LENGTH + '_'.length + 200;

/**
 * The longest value of each filter: the longest value its field can hold, as link creation takes
 * it (link-input.ts: url 4096, sharer_id a UUID, tag and the other texts 255) or derives it
 * (svc_id, parent and domain from the connected domains and paths). A longer value could match no
 * link and is refused (400); a shorter limit would make links impossible to filter on.
 */
export const FILTER_MAX_LENGTH: Record<FilterField, number> = {
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
  country: 2,
  region: 255,
  city: 255,
  device: 7,
  browser: 255,
  os: 255,
  referrer_host: 253,
};

export const SHARED_AT_RANGE: Record<SharedAtField, number> = {
  shared_at_hour_of_day: 23,
  shared_at_day_of_week: 6,
  shared_at_hour_of_week: 167,
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

export function isLinkField(name: string): name is LinkField {
  return name in LINK_FIELDS;
}

export function isSharedAtField(name: string): name is SharedAtField {
  return name in SHARED_AT_FIELDS;
}

export function isMultiTagField(name: string): name is MultiTagField {
  return (MULTI_TAG_FIELDS as readonly string[]).includes(name);
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
  return isLinkField(field) ? LINK_FIELDS[field] : SHARED_AT_FIELDS[field];
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

/**
 * ClickHouse conditions over the links mirror for the link filters, each value bound through `bind`
 * (which names its `{name:Type}` placeholder); click dimensions are conditions over the events
 * (eventConditions). A tool matches by its key or by a key whose label it is (`toolKeys`, looked
 * up in PostgreSQL).
 */
export function filterConditions(
  filters: Partial<Record<FilterField, string>>,
  bind: (value: unknown, type: string) => string,
  toolKeys: string[] = [],
): string[] {
  const conditions: string[] = [];
  for (const [name, value] of Object.entries(filters)) {
    if (name === 'tool') {
      conditions.push(
        `(tool = ${bind(value, 'String')} OR tool IN ${bind(toolKeys, 'Array(String)')})`,
      );
    } else if (isLinkField(name)) {
      conditions.push(`${LINK_FIELDS[name]} = ${bind(value, 'String')}`);
    } else if (isSharedAtField(name)) {
      conditions.push(`${SHARED_AT_FIELDS[name]} = ${bind(Number(value), 'UInt16')}`);
    } else if (isMultiTagField(name)) {
      conditions.push(`has(${name}, ${bind(value, 'String')})`);
    }
  }
  return conditions;
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

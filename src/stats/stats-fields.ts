/**
 * Every field a stats request may filter, group or pivot on, with its SQL expression over
 * `links l`. Only these identifiers ever reach SQL (STYLE.md: whitelist names, bind values).
 */
export const SHARED_AT = 'COALESCE(l.service_postid_shared_at, l.created_at)';

const SHARED_UTC = `(${SHARED_AT} AT TIME ZONE 'UTC')`;

export const LINK_FIELDS = {
  application: 'l.application',
  svc_id: 'l.svc_id',
  campaign: 'l.campaign',
  channel: 'l.channel',
  domain: 'l.domain',
  original_url: 'l.original_url',
  parent: 'l.parent',
  service: 'l.service',
  service_postid: 'l.service_postid',
  service_userid: 'l.service_userid',
  sharer_id: 'l.sharer_id::text',
  tag: 'l.tag',
  tool: 'l.tool',
  user_id: 'l.user_id',
  username: 'l.username',
} as const;

export const SHARED_AT_FIELDS = {
  shared_at_hour_of_day: `EXTRACT(HOUR FROM ${SHARED_UTC})::int`,
  // ISO 8601: Monday is day 0, and hour 0 of the week is Monday midnight to 1 AM.
  shared_at_day_of_week: `(EXTRACT(ISODOW FROM ${SHARED_UTC})::int - 1)`,
  shared_at_hour_of_week: `((EXTRACT(ISODOW FROM ${SHARED_UTC})::int - 1) * 24 + EXTRACT(HOUR FROM ${SHARED_UTC})::int)`,
} as const;

/** Multi-value tag fields of totals: a link matches when the value is one of its values. */
export const MULTI_TAG_FIELDS = ['tag_2', 'tag_3', 'tag_4', 'tag_5'] as const;

export type LinkField = keyof typeof LINK_FIELDS;
export type SharedAtField = keyof typeof SHARED_AT_FIELDS;
export type MultiTagField = (typeof MULTI_TAG_FIELDS)[number];
export type GroupField = LinkField | SharedAtField | MultiTagField | 'project';
export type FilterField = LinkField | SharedAtField | MultiTagField;

export const SHARED_AT_RANGE: Record<SharedAtField, number> = {
  shared_at_hour_of_day: 23,
  shared_at_day_of_week: 6,
  shared_at_hour_of_week: 167,
};

export function isLinkField(name: string): name is LinkField {
  return name in LINK_FIELDS;
}

export function isSharedAtField(name: string): name is SharedAtField {
  return name in SHARED_AT_FIELDS;
}

export function isMultiTagField(name: string): name is MultiTagField {
  return (MULTI_TAG_FIELDS as readonly string[]).includes(name);
}

/**
 * The SQL expression of a group or pivot field. `project` groups by the project's API key, the
 * value the response shows, so alpha sorts and ties order by it (pk_projects). A multi-value tag
 * field gives the link's array of values: the caller counts the link in the group of each value
 * (multiValued), and in the null group when it has none.
 */
export function groupExpression(field: GroupField): string {
  if (field === 'project') return '(SELECT pr.api_key::text FROM projects pr WHERE pr.id = l.project_id)';
  if (isMultiTagField(field)) return `l.${field}`;
  return isLinkField(field) ? LINK_FIELDS[field] : SHARED_AT_FIELDS[field];
}

export const SORT_TYPES_BASE = ['clicks', 'shares', 'clicks_per_share', 'alpha', 'shared_at'] as const;

/** Conversion sort types: pageviews, goal_n_count/value (n ≤ 5 on range, ≤ 10 on totals), goal_total_*. */
export function conversionSortTypes(goals: number): string[] {
  const types = ['pageviews', 'goal_total_count', 'goal_total_value'];
  for (let n = 1; n <= goals; n++) types.push(`goal_${n}_count`, `goal_${n}_value`);
  return types;
}

/** SQL conditions over `links l` for the filters, each value bound through `bind`. */
export function filterConditions(filters: Partial<Record<FilterField, string>>, bind: (value: unknown) => string): string[] {
  const conditions: string[] = [];
  for (const [name, value] of Object.entries(filters)) {
    const placeholder = bind(value);
    if (name === 'tool') {
      // A tool by its key or by its registered label (pk_tools, ix_tools_label).
      conditions.push(
        `(l.tool = ${placeholder} OR l.tool IN (SELECT t.key FROM tools t WHERE t.project_id = l.project_id AND t.label = ${placeholder}))`,
      );
    } else if (isLinkField(name)) {
      conditions.push(`${LINK_FIELDS[name]} = ${placeholder}`);
    } else if (isSharedAtField(name)) {
      conditions.push(`${SHARED_AT_FIELDS[name]} = ${placeholder}::int`);
    } else if (isMultiTagField(name)) {
      conditions.push(`${placeholder} = ANY(l.${name})`);
    }
  }
  return conditions;
}

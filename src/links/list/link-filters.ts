import { Errors } from '../../common/app-error';
import { RawParams } from '../../common/params';
import { normaliseLinkHost } from '../../common/validators';

/**
 * The link filters (docs/api.md, "Statistics" and "Listing links"): the link attributes that
 * statistics and the link list filter by, under the same names, lengths and checks. Statistics add
 * the click dimensions (src/stats/stats-fields.ts); both read their filters through readFilters.
 */

/** Link attributes filtered by equality (a tool by its key or its label). */
export const LINK_FIELDS = [
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

/**
 * The link's shared time (its post's, else its creation) in UTC, and each field's largest value:
 * ISO weeks, Monday is day 0, hour 0 of the week is Monday midnight to 1 AM.
 */
export const SHARED_AT_RANGE = {
  shared_at_hour_of_day: 23,
  shared_at_day_of_week: 6,
  shared_at_hour_of_week: 167,
} as const;

/** Multi-value tags: a link matches when the value is one of its values. */
export const MULTI_TAG_FIELDS = ['tag_2', 'tag_3', 'tag_4', 'tag_5'] as const;

export type LinkField = (typeof LINK_FIELDS)[number];
export type SharedAtField = keyof typeof SHARED_AT_RANGE;
export type MultiTagField = (typeof MULTI_TAG_FIELDS)[number];
export type LinkFilter = LinkField | SharedAtField | MultiTagField;

/** Every link filter, in the order they are read (and so checked). */
export const LINK_FILTERS: readonly LinkFilter[] = [
  ...LINK_FIELDS,
  ...(Object.keys(SHARED_AT_RANGE) as SharedAtField[]),
  ...MULTI_TAG_FIELDS,
];

/** The longest link domain: a hostname (253), `:port` and `_segment` (64), per parseLinkHost. */
const DOMAIN_MAX_LENGTH = 253 + ':65535'.length + '_'.length + 64;

/** The longest svc_id: its domain, `_` and a path of at most 200 characters (isValidCustomPath). */
const SVC_ID_MAX_LENGTH = DOMAIN_MAX_LENGTH + '_'.length + 200;

/**
 * The longest value of each link filter: the longest value its field can hold, as link creation
 * takes it (link-input.ts: url 4096, sharer_id a UUID, tag and the other texts 255) or derives it
 * (svc_id, parent and domain from the connected domains and paths). A longer value could match no
 * link and is refused (400); a shorter limit would make links impossible to filter on.
 */
export const LINK_FILTER_MAX_LENGTH: Record<LinkFilter, number> = {
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

export function isLinkField(name: string): name is LinkField {
  return (LINK_FIELDS as readonly string[]).includes(name);
}

export function isSharedAtField(name: string): name is SharedAtField {
  return name in SHARED_AT_RANGE;
}

export function isMultiTagField(name: string): name is MultiTagField {
  return (MULTI_TAG_FIELDS as readonly string[]).includes(name);
}

/**
 * A link filter's value, checked and normalised: at most its field's length, a shared_at_* field
 * an integer in its range, a domain's host part in lower case (its `_segment` as connected:
 * normaliseLinkHost). 400 naming the parameter otherwise.
 */
export function linkFilterValue(name: LinkFilter, value: string): string {
  const maxLength = LINK_FILTER_MAX_LENGTH[name];
  if (value.length > maxLength) {
    throw Errors.invalid(name, `must be at most ${maxLength} characters`);
  }
  if (isSharedAtField(name)) {
    const max = SHARED_AT_RANGE[name];
    if (!/^\d+$/.test(value) || Number(value) > max)
      throw Errors.invalid(name, `must be an integer from 0 to ${max}`);
  }
  return name === 'domain' ? normaliseLinkHost(value) : value;
}

/**
 * The filters of `names` the request gives, each through `valueOf` (which checks and normalises
 * it): one value per parameter (400 naming it otherwise); an empty value is no filter.
 */
export function readFilters<F extends string>(
  params: RawParams,
  names: readonly F[],
  valueOf: (name: F, value: string) => string,
): Partial<Record<F, string>> {
  const filters: Partial<Record<F, string>> = {};
  for (const name of names) {
    const raw = params[name];
    if (raw === undefined || raw === '') continue;
    const values = Array.isArray(raw) ? raw : [raw];
    if (values.length !== 1 || typeof values[0] !== 'string') {
      throw Errors.invalid(name, 'takes one value per request');
    }
    filters[name] = valueOf(name, values[0]);
  }
  return filters;
}

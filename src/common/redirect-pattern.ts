/** The link fields a redirection pattern may use as %field% (docs/api.md, "Tracked links"). */
export const PATTERN_FIELDS = [
  'svc_url',
  'svc_id',
  'domain',
  'path',
  'created_at',
  'original_url',
  'escaped_original_url',
  'channel',
  'service',
  'tool',
  'application',
  'parent',
  'sharer_id',
  'username',
  'service_userid',
  'service_postid',
  // service_postid_metadata's members, named as the update parameters that set them.
  'service_postid_reach',
  'service_postid_shared_at',
  'campaign',
  'campaign_name',
  'campaign_description',
  'user_id',
  'user_id_username',
  'user_id_icon_url',
  'user_id_profile_url',
  'tag',
  'notes',
] as const;

export type PatternField = (typeof PATTERN_FIELDS)[number];
/** Every field's value, so a field cannot be left out (escaped_original_url is original_url's). */
export type PatternValues = Record<Exclude<PatternField, 'escaped_original_url'>, string | null>;

const FIELD_RE = new RegExp(`%(${PATTERN_FIELDS.join('|')})%`, 'g');
const MAX_VALUE = 128;

/**
 * Builds a redirect address from a pattern: each %field% is replaced by the link's value,
 * URL-escaped and trimmed to 128 characters, except %original_url% (as is) and
 * %escaped_original_url% (escaped, whole). Missing values are empty; other `%` text is kept.
 */
export function expandPattern(pattern: string, values: Partial<PatternValues>): string {
  return pattern.replace(FIELD_RE, (_, field: PatternField) => {
    if (field === 'original_url') return values.original_url ?? '';
    if (field === 'escaped_original_url') return encodeURIComponent(values.original_url ?? '');
    const value = values[field];
    if (value === null || value === undefined) return '';
    return encodeURIComponent(trim(value));
  });
}

/** The first 128 characters (code points: half of an emoji could not be escaped). */
function trim(value: string): string {
  return value.length <= MAX_VALUE ? value : Array.from(value).slice(0, MAX_VALUE).join('');
}

/** Whether a pattern starts as an absolute http(s) URL or with %original_url% (checked when set). */
export function isValidPattern(pattern: string): boolean {
  return (
    /^(https?:\/\/(%[a-z_]+%|[^\s/?#%]+)|%original_url%)/i.test(pattern) && pattern.length <= 2048
  );
}

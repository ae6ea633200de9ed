import { Errors } from '../common/app-error';
import { RawParams, parseDate, single } from '../common/params';
import { isHttpUrl, normaliseLinkHost } from '../common/validators';
import type { ControlValues } from './controls/link-controls';
import type { NewLink } from './links.repository';

/** A link's metadata parameters plus the advanced and update ones, as given (docs/api.md, "Tracked links"). */
export interface LinkInput {
  tool?: string;
  channel?: string;
  url?: string;
  campaign?: string;
  campaignName?: string;
  campaignDescription?: string;
  notes?: string;
  parent?: string;
  serviceUserid?: string;
  tag?: string;
  tags?: Partial<Record<'tag_2' | 'tag_3' | 'tag_4' | 'tag_5', string[]>>;
  userId?: string;
  userIdUsername?: string;
  userIdIconUrl?: string;
  userIdProfileUrl?: string;
  sharerId?: string;
  domain?: string;
  path?: string;
  servicePostid?: string;
  servicePostidReach?: number;
  servicePostidSharedAt?: Date;
  /**
   * Link controls (docs/api.md, "Link controls"), the password still in clear: read by
   * readLinkControls, not by readLinkInput; the services hash it (resolveControls).
   */
  controls?: ControlValues;
  /** An imported link's date and clicks (docs/api.md, "Importing links"); never read from a request. */
  createdAt?: Date;
  importedClicks?: number;
}

/** The columns an imported link's input sets (none for a link made through the API). */
export function importedColumns(input: LinkInput): Pick<NewLink, 'createdAt' | 'importedClicks'> {
  return {
    createdAt: input.createdAt,
    importedClicks: input.importedClicks === undefined ? null : String(input.importedClicks),
  };
}

/** Parameters a batch request may give as arrays (docs/api.md, "Tracked links": batch). */
export const BATCH_ARRAY_PARAMETERS = [
  'campaign',
  'channel',
  'notes',
  'parent',
  'path',
  'service_userid',
  'sharer_id',
  'tag',
  'tool',
  'url',
  'user_id',
] as const;

const MULTI_TAGS = ['tag_2', 'tag_3', 'tag_4', 'tag_5'] as const;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `domain`: the host part in any case; a `_segment` is a path segment of the links, kept as written. */
function linkDomain(value: string | undefined): string | undefined {
  return value === undefined ? undefined : normaliseLinkHost(value);
}

function multiTag(params: RawParams, name: string): string[] | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === '') return undefined;
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, i) => {
    if (typeof item !== 'string' || item === '')
      throw Errors.invalid(`${name}[${i}]`, 'must be a non-empty string');
    if (item.length > 255) throw Errors.invalid(name, 'values must be at most 255 characters');
    return item;
  });
}

/**
 * Reads one link's parameters. `values` overrides parameters that a batch gives as arrays (the
 * element for this link). Shape rules are checked here; rules that need the database (campaign
 * creation, parent, domain access, sharer) are the service's.
 */
export function readLinkInput(
  params: RawParams,
  values: Partial<Record<string, string>> = {},
): LinkInput {
  const get = (name: string, max?: number) =>
    name in values ? values[name] : single(params, name, max);
  const input: LinkInput = {
    tool: get('tool', 255),
    channel: get('channel', 255),
    url: get('url', 4096),
    campaign: get('campaign', 255),
    campaignName: single(params, 'campaign_name', 255),
    campaignDescription: single(params, 'campaign_description', 1024),
    notes: get('notes', 100_000),
    parent: get('parent', 512),
    serviceUserid: get('service_userid', 255),
    tag: get('tag', 255),
    userId: get('user_id', 255),
    userIdUsername: single(params, 'user_id_username', 255),
    userIdIconUrl: single(params, 'user_id_icon_url', 2048),
    userIdProfileUrl: single(params, 'user_id_profile_url', 2048),
    sharerId: get('sharer_id', 64),
    domain: linkDomain(single(params, 'domain', 255)),
    path: get('path', 200),
    servicePostid: single(params, 'service_postid', 255),
  };
  if (input.url !== undefined && !isHttpUrl(input.url)) {
    throw Errors.invalid('url', 'must be an absolute http(s) URL');
  }
  if (input.notes !== undefined && input.notes.length > 256) {
    throw Errors.invalid('notes', 'must be at most 256 characters');
  }
  if (
    input.campaign === undefined &&
    (input.campaignName !== undefined || input.campaignDescription !== undefined)
  ) {
    throw Errors.invalid(
      input.campaignName !== undefined ? 'campaign_name' : 'campaign_description',
      'needs a valid campaign',
    );
  }
  if (
    input.userId === undefined &&
    (input.userIdUsername !== undefined ||
      input.userIdIconUrl !== undefined ||
      input.userIdProfileUrl !== undefined)
  ) {
    const name =
      input.userIdUsername !== undefined
        ? 'user_id_username'
        : input.userIdIconUrl !== undefined
          ? 'user_id_icon_url'
          : 'user_id_profile_url';
    throw Errors.invalid(name, 'needs a valid user_id');
  }
  for (const name of ['user_id_icon_url', 'user_id_profile_url'] as const) {
    const value = name === 'user_id_icon_url' ? input.userIdIconUrl : input.userIdProfileUrl;
    if (value !== undefined && !isHttpUrl(value))
      throw Errors.invalid(name, 'must be an absolute http(s) URL');
  }
  if (input.sharerId !== undefined && !UUID_RE.test(input.sharerId)) {
    throw Errors.invalid('sharer_id', 'must be a sharer_id (UUID) of a project user');
  }
  const reach = single(params, 'service_postid_reach', 20);
  if (reach !== undefined) {
    if (!/^\d+$/.test(reach) || !Number.isSafeInteger(Number(reach))) {
      throw Errors.invalid('service_postid_reach', 'must be a non-negative integer');
    }
    input.servicePostidReach = Number(reach);
  }
  const sharedAt = single(params, 'service_postid_shared_at', 64);
  if (sharedAt !== undefined)
    input.servicePostidSharedAt = parseDate(sharedAt, 'service_postid_shared_at');
  const tags: LinkInput['tags'] = {};
  for (const name of MULTI_TAGS) {
    const list = multiTag(params, name);
    if (list) tags[name] = list;
  }
  if (Object.keys(tags).length > 0) input.tags = tags;
  return input;
}

/**
 * Batch (docs/api.md, "Tracked links"): at most one of the listed parameters may be an array; one link per element.
 * A single `path` with several values elsewhere is refused (one path cannot serve many links).
 */
export function readBatchInputs(params: RawParams): LinkInput[] {
  const arrays = BATCH_ARRAY_PARAMETERS.filter((name) => Array.isArray(params[name]));
  if (arrays.length > 1) {
    throw Errors.badRequest(
      `Arrays given for more than one parameter (${arrays.join(', ')}); only one may vary`,
    );
  }
  if (arrays.length === 0) return [readLinkInput(params)];
  const name = arrays[0];
  const list = params[name] as unknown[];
  if (list.length === 0) throw Errors.missing(name);
  if (list.length > 1000) throw Errors.invalid(name, 'at most 1000 values per batch');
  if (name !== 'path' && single(params, 'path') !== undefined && list.length > 1) {
    throw Errors.invalid(
      'path',
      'a single path cannot be used with several values of another parameter',
    );
  }
  return list.map((value, i) => {
    if (typeof value !== 'string' || value === '')
      throw Errors.invalid(`${name}[${i}]`, 'must be a non-empty string');
    return readLinkInput(params, { [name]: value });
  });
}

import { domainToASCII } from 'node:url';
import { Errors } from '../common/app-error';
import { GOALS, RECORDED_GOALS } from '../common/goals';
import { rejectUnknownFields, stringList } from '../common/json-parameter';
import { normaliseLinkHost, parseLinkHost } from '../common/validators';
import { isValidPattern } from '../common/redirect-pattern';
import type { ProjectSettings } from './project.entity';
import { ProjectRole, ROLES } from './project-user.entity';
import {
  VISITOR_STORAGE_FIELDS,
  VisitorStorageInput,
  parseVisitorStorage,
} from './project-visitor-storage';
import { RETENTION_FIELDS, RetentionInput, parseRetention } from './project-retention';

export { normaliseLinkHost };

/** A value taken from the `json` object, with the parameter path that names it in errors. */
export interface Named<T = string> {
  value: T;
  parameter: string;
}

export interface MemberRef extends Named {
  role: ProjectRole;
}

/** Goal numbers whose labels the project objects set: the goals conversions record. */
export const SETTABLE_GOALS = RECORDED_GOALS;
/** Goal numbers that appear in project listings: every goal. */
export const LISTED_GOALS = GOALS;
export const GOAL_LABEL_MAX = 256;
export const PROJECT_NAME_MAX = 100;

export interface ConversionsInput {
  enabled?: boolean;
  /** 'all', or hostnames (replaced on create, added on update). */
  domains?: 'all' | string[];
  /** Update only. 'all' switches back from every redirection to a host list. */
  removeDomains: Named[];
  /** goal_<n> → label (null clears); only the goals given. */
  goalLabels: Record<string, string | null>;
}

/** Link settings as given: patterns to set (null removes) and the UTM switch. */
export interface LinkSettingsInput {
  redirectionPatterns: Record<string, string | null>;
  utmParameters?: boolean;
  /** The list that replaces publishable_hosts, when given. */
  publishableHosts?: string[];
}

export interface CreateProjectInput {
  name: string;
  settings: LinkSettingsInput;
  domains: Named[];
  defaultDomain: Named | null;
  members: MemberRef[];
  conversions: ConversionsInput | null;
  /** Extension: ip_storage and ua_storage (docs/api.md, "Addresses"). */
  visitorStorage: VisitorStorageInput;
  /** Extension: retention_days (docs/api.md, "Retention"). */
  retention: RetentionInput;
}

export interface UpdateProjectInput {
  name: string | null;
  settings: LinkSettingsInput;
  domains: Named[];
  removeDomains: Named[];
  defaultDomain: Named | null;
  members: MemberRef[];
  removeUsers: Named[];
  changeRoles: MemberRef[];
  conversions: ConversionsInput | null;
  /** Extension: replace the publishable key (docs/api.md, "Keys"). */
  rotatePublishableKey: boolean;
  /** Extension: ip_storage and ua_storage (docs/api.md, "Addresses"). */
  visitorStorage: VisitorStorageInput;
  /** Extension: retention_days (docs/api.md, "Retention"). */
  retention: RetentionInput;
}

const CREATE_FIELDS = [
  'name',
  'conversions',
  'domains',
  'default_domain',
  'admins',
  'sharers',
  'viewers',
  'redirection_patterns',
  'utm_parameters',
  'publishable_hosts',
  ...VISITOR_STORAGE_FIELDS,
  ...RETENTION_FIELDS,
];
const UPDATE_FIELDS = [
  ...CREATE_FIELDS,
  'remove_domain',
  'remove_user',
  'change_role',
  'rotate_publishable_key',
];
const NAME_RE = /^[A-Za-z0-9_-]+$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The project creation object (docs/api.md, "Administration"); throws a 400 naming the offending field. */
export function parseProjectCreation(json: Record<string, unknown>): CreateProjectInput {
  rejectUnknownFields(json, CREATE_FIELDS, 'json', 'the project creation object');
  if (json.name === undefined || json.name === null || json.name === '')
    throw Errors.missing('json.name');
  return {
    name: parseName(json.name),
    settings: parseLinkSettings(json),
    domains: parseHostnames(json.domains, 'json.domains'),
    defaultDomain: parseDefaultDomain(json.default_domain),
    members: parseMembers(json),
    conversions: json.conversions === undefined ? null : parseConversions(json.conversions, false),
    visitorStorage: parseVisitorStorage(json),
    retention: parseRetention(json),
  };
}

/** The project update object (docs/api.md, "Administration"): only what changes. */
export function parseProjectUpdate(json: Record<string, unknown>): UpdateProjectInput {
  rejectUnknownFields(json, UPDATE_FIELDS, 'json', 'the project update object');
  return {
    name: json.name === undefined ? null : parseName(json.name),
    settings: parseLinkSettings(json),
    domains: parseHostnames(json.domains, 'json.domains'),
    removeDomains: parseHostnames(json.remove_domain, 'json.remove_domain'),
    defaultDomain: parseDefaultDomain(json.default_domain),
    members: parseMembers(json),
    removeUsers: named(json.remove_user, 'json.remove_user'),
    changeRoles: parseChangeRoles(json.change_role),
    conversions: json.conversions === undefined ? null : parseConversions(json.conversions, true),
    rotatePublishableKey: parseRotation(json.rotate_publishable_key),
    visitorStorage: parseVisitorStorage(json),
    retention: parseRetention(json),
  };
}

/** rotate_publishable_key: a JSON boolean only (a string is refused: a key is not rotated by accident). */
function parseRotation(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') {
    throw Errors.invalid('json.rotate_publishable_key', 'must be true or false (a JSON boolean)');
  }
  return value;
}

const PATTERN_HOST_RE =
  /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * redirection_patterns: {"<original-URL hostname>": "<pattern>" | null}, one pattern per hostname,
 * null removing it; utm_parameters: boolean.
 */
function parseLinkSettings(json: Record<string, unknown>): LinkSettingsInput {
  const settings: LinkSettingsInput = { redirectionPatterns: {} };
  const patterns = json.redirection_patterns;
  if (patterns !== undefined) {
    if (typeof patterns !== 'object' || patterns === null || Array.isArray(patterns)) {
      throw Errors.invalid('json.redirection_patterns', 'must be an object of hostname → pattern');
    }
    for (const [host, pattern] of Object.entries(patterns as Record<string, unknown>)) {
      const hostname = host.toLowerCase();
      const parameter = `json.redirection_patterns.${host}`;
      if (!PATTERN_HOST_RE.test(hostname))
        throw Errors.invalid(parameter, 'the key must be a hostname');
      if (pattern !== null && (typeof pattern !== 'string' || !isValidPattern(pattern))) {
        throw Errors.invalid(
          parameter,
          'must be null or a pattern starting with http(s):// or %original_url%, at most 2048 characters',
        );
      }
      settings.redirectionPatterns[hostname] = pattern;
    }
  }
  if (json.utm_parameters !== undefined) {
    settings.utmParameters = parseBoolean(json.utm_parameters, 'json.utm_parameters');
  }
  if (json.publishable_hosts !== undefined) {
    settings.publishableHosts = parsePublishableHosts(json.publishable_hosts);
  }
  return settings;
}

/** The most hosts publishable_hosts lists. */
export const PUBLISHABLE_HOSTS_MAX = 100;

/**
 * publishable_hosts: an array of hostnames (an internationalised name as given or in punycode),
 * without scheme, port or path; each also stands for its subdomains (docs/api.md, "Keys").
 */
function parsePublishableHosts(value: unknown): string[] {
  const parameter = 'json.publishable_hosts';
  if (!Array.isArray(value) || value.some((host) => typeof host !== 'string')) {
    throw Errors.invalid(parameter, 'must be an array of hostnames');
  }
  if (value.length > PUBLISHABLE_HOSTS_MAX) {
    throw Errors.invalid(parameter, `must list at most ${PUBLISHABLE_HOSTS_MAX} hostnames`);
  }
  const hosts = (value as string[]).map((host) => {
    const ascii = host.length <= 253 ? domainToASCII(host.toLowerCase()) : '';
    if (!PATTERN_HOST_RE.test(ascii)) {
      throw Errors.invalid(parameter, `"${host.slice(0, 100)}" is not a hostname`);
    }
    return ascii;
  });
  return [...new Set(hosts)];
}

/** The stored settings after applying the given ones. */
export function applyLinkSettings(
  current: ProjectSettings,
  input: LinkSettingsInput,
): ProjectSettings {
  const patterns = { ...(current.redirection_patterns ?? {}) };
  for (const [host, pattern] of Object.entries(input.redirectionPatterns)) {
    if (pattern === null) delete patterns[host];
    else patterns[host] = pattern;
  }
  return {
    ...current,
    redirection_patterns: patterns,
    utm_parameters: input.utmParameters ?? current.utm_parameters ?? false,
    publishable_hosts: input.publishableHosts ?? current.publishable_hosts ?? [],
  };
}

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

function parseName(value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw Errors.invalid('json.name', 'must be a non-empty string');
  if (!NAME_RE.test(value)) {
    throw Errors.invalid(
      'json.name',
      `"${value}" may contain only a-z, A-Z, 0-9, underscore and hyphen`,
    );
  }
  if (value.length > PROJECT_NAME_MAX) {
    throw Errors.invalid('json.name', `must be at most ${PROJECT_NAME_MAX} characters`);
  }
  return value;
}

/** A string or an array of strings, each with its parameter path (`json.sharers` or `json.sharers[1]`). */
function named(value: unknown, parameter: string): Named[] {
  const list = stringList(value, parameter);
  return list.map((item, index) => ({
    value: item,
    parameter: Array.isArray(value) ? `${parameter}[${index}]` : parameter,
  }));
}

function parseHostnames(value: unknown, parameter: string): Named[] {
  return named(value, parameter).map(({ value: host, parameter: path }) => {
    const normalised = normaliseLinkHost(host);
    if (!parseLinkHost(normalised)) {
      throw Errors.invalid(path, `"${host}" is not a hostname (domain or domain_segment form)`);
    }
    return { value: normalised, parameter: path };
  });
}

function parseDefaultDomain(value: unknown): Named | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.trim() === '') {
    throw Errors.invalid('json.default_domain', 'must be a hostname string');
  }
  const [host] = parseHostnames(value, 'json.default_domain');
  return host;
}

function parseMembers(json: Record<string, unknown>): MemberRef[] {
  const members: MemberRef[] = [];
  for (const role of ROLES) {
    for (const ref of named(json[`${role}s`], `json.${role}s`)) members.push({ ...ref, role });
  }
  return members;
}

function parseRole(value: unknown, parameter: string): ProjectRole {
  if (typeof value !== 'string' || !(ROLES as readonly string[]).includes(value)) {
    throw Errors.invalid(parameter, `must be one of ${ROLES.join(', ')}`);
  }
  return value as ProjectRole;
}

function parseChangeRoles(value: unknown): MemberRef[] {
  if (value === undefined || value === null) return [];
  const list: unknown[] = Array.isArray(value) ? value : [value];
  return list.map((item, index) => {
    const parameter = Array.isArray(value) ? `json.change_role[${index}]` : 'json.change_role';
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw Errors.invalid(parameter, 'must be an object {user, role}');
    }
    const entry = item as Record<string, unknown>;
    rejectUnknownFields(entry, ['user', 'role'], parameter, 'a change_role entry');
    if (typeof entry.user !== 'string' || entry.user.trim() === '') {
      throw Errors.invalid(`${parameter}.user`, 'must be an e-mail address, sharer_id or username');
    }
    return {
      value: entry.user.trim(),
      parameter: `${parameter}.user`,
      role: parseRole(entry.role, `${parameter}.role`),
    };
  });
}

function parseBoolean(value: unknown, parameter: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value))
    return value.toLowerCase() === 'true';
  throw Errors.invalid(parameter, 'must be true or false');
}

/** Landing-page hosts: any hostname (no scheme, path, port or segment). */
function parseLandingHosts(value: unknown, parameter: string): Named[] {
  return named(value, parameter).map(({ value: host, parameter: path }) => {
    const normalised = host.toLowerCase();
    const parsed = parseLinkHost(normalised);
    if (normalised !== 'all' && (!parsed || parsed.port !== null || parsed.segment !== null)) {
      throw Errors.invalid(path, `"${host}" is not a hostname`);
    }
    return { value: normalised, parameter: path };
  });
}

function parseConversions(value: unknown, update: boolean): ConversionsInput {
  const parameter = 'json.conversions';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw Errors.invalid(parameter, 'must be an object');
  }
  const object = value as Record<string, unknown>;
  const goalFields = SETTABLE_GOALS.map((n) => `goal_${n}_label`);
  const allowed = ['enabled', 'domains', ...(update ? ['remove_domain'] : []), ...goalFields];
  rejectUnknownFields(object, allowed, parameter, 'the conversions object');
  const input: ConversionsInput = { removeDomains: [], goalLabels: {} };
  if (object.enabled !== undefined)
    input.enabled = parseBoolean(object.enabled, `${parameter}.enabled`);
  if (object.domains !== undefined && object.domains !== null) {
    const hosts = parseLandingHosts(object.domains, `${parameter}.domains`);
    input.domains = hosts.some((host) => host.value === 'all')
      ? 'all'
      : unique(hosts.map((host) => host.value));
  }
  if (update)
    input.removeDomains = parseLandingHosts(object.remove_domain, `${parameter}.remove_domain`);
  for (const n of SETTABLE_GOALS) {
    const field = `goal_${n}_label`;
    if (!(field in object)) continue;
    const label = object[field];
    if (label === null || label === '') {
      input.goalLabels[`goal_${n}`] = null;
    } else if (typeof label !== 'string') {
      throw Errors.invalid(`${parameter}.${field}`, 'must be a string or null');
    } else if (label.length > GOAL_LABEL_MAX) {
      throw Errors.invalid(`${parameter}.${field}`, `must be at most ${GOAL_LABEL_MAX} characters`);
    } else {
      input.goalLabels[`goal_${n}`] = label;
    }
  }
  return input;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

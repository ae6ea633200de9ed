import { Errors } from '../common/app-error';
import { rejectUnknownFields as rejectFields, stringList } from '../common/json-parameter';
import { EVENT_TYPES, type EventType } from '../events/project-event';

/** The fields of the webhook creation object (docs/api.md, "Administration of webhooks"). */
export const CREATE_FIELDS = [
  'project',
  'url',
  'events',
  'description',
  'links',
  'pageviews',
] as const;

/** The fields of the webhook update object: include only what changes. */
export const UPDATE_FIELDS = [
  'url',
  'events',
  'description',
  'links',
  'pageviews',
  'enabled',
] as const;

/** The most webhooks one project may have. */
export const MAX_WEBHOOKS_PER_PROJECT = 20;
/** The most links one webhook may be limited to. */
export const MAX_WEBHOOK_LINKS = 1000;
export const MAX_DESCRIPTION_LENGTH = 500;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path's id can name a webhook at all (a uuid); any other text is simply not found. */
export function isWebhookId(text: string): boolean {
  return UUID_RE.test(text);
}

/**
 * Refuses fields the object does not know, naming them (a typo must not pass silently); a webhook
 * stays in the project it was made in.
 */
export function rejectUnknownFields(
  input: Record<string, unknown>,
  allowed: readonly string[],
  what: string,
): void {
  if ('project' in input && !allowed.includes('project')) {
    throw Errors.invalid(
      'json.project',
      'a webhook cannot move to another project; destroy it and create one in the other project',
    );
  }
  rejectFields(input, allowed, 'json', what);
}

/** `project`: the API key of a project of the subscription (looked up by the service). */
export function parseProjectKey(value: unknown): string {
  if (value === undefined || value === null || value === '') throw Errors.missing('json.project');
  if (typeof value !== 'string') throw Errors.invalid('json.project', 'must be a string');
  return value.trim();
}

/**
 * `url` as text: its scheme, length and addresses are checkWebhookUrl's, which needs a DNS look-up
 * and so runs in the service.
 */
export function parseUrlText(value: unknown): string {
  if (value === undefined || value === null || value === '') throw Errors.missing('json.url');
  if (typeof value !== 'string') throw Errors.invalid('json.url', 'must be a string');
  return value.trim();
}

/** `events`: at least one event type, each once (a single string is taken as one). */
export function parseEvents(value: unknown): EventType[] {
  if (value === undefined || value === null) throw Errors.missing('json.events');
  const events = stringList(value, 'json.events');
  if (events.length === 0) {
    throw Errors.invalid('json.events', `must name at least one of ${EVENT_TYPES.join(', ')}`);
  }
  events.forEach((event, index) => {
    if (!(EVENT_TYPES as readonly string[]).includes(event)) {
      throw Errors.invalid(
        `json.events[${index}]`,
        `"${event}" is not an event type (one of ${EVENT_TYPES.join(', ')})`,
      );
    }
    if (events.indexOf(event) !== index) {
      throw Errors.invalid(`json.events[${index}]`, `"${event}" is listed twice`);
    }
  });
  return events as EventType[];
}

/** `description`: at most 500 characters; null or empty for none. */
export function parseDescription(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw Errors.invalid('json.description', 'must be a string');
  if (value.length > MAX_DESCRIPTION_LENGTH) {
    throw Errors.invalid(
      'json.description',
      `must be at most ${MAX_DESCRIPTION_LENGTH} characters`,
    );
  }
  return value;
}

/**
 * `links`: the svc_ids `link.clicked` is limited to, each once, at most 1,000 (a single string is
 * taken as one); null for every link. Whether each is a link of the project is the service's check.
 */
export function parseLinks(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  const links = stringList(value, 'json.links');
  if (links.length === 0) {
    throw Errors.invalid('json.links', 'must name at least one svc_id, or be null for every link');
  }
  if (links.length > MAX_WEBHOOK_LINKS) {
    throw Errors.invalid('json.links', `takes at most ${MAX_WEBHOOK_LINKS} links`);
  }
  const seen = new Set<string>();
  links.forEach((svcId, index) => {
    if (seen.has(svcId)) throw Errors.invalid(`json.links[${index}]`, `${svcId} is listed twice`);
    seen.add(svcId);
  });
  return links;
}

/** A JSON boolean (`pageviews`, `enabled`). */
export function parseBoolean(value: unknown, parameter: string): boolean {
  if (typeof value !== 'boolean') throw Errors.invalid(parameter, 'must be true or false');
  return value;
}

import { AppError, Errors } from '../../common/app-error';
import { parseDate } from '../../common/params';

/** The files `import` reads (docs/api.md, "Importing links"). */
export const IMPORT_FORMATS = ['shlink', 'yourls', 'bitly', 'kutt', 'csv'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One link as a file describes it, before the project's rules are applied. */
export interface ImportedLink {
  /** The line it is on (from 1); `item`: its place in a Kutt answer's `data`. */
  line: number;
  item?: number;
  url: string;
  path: string;
  /** The short link's host when the file names one. */
  domain?: string;
  title?: string;
  tags: string[];
  createdAt?: Date;
  clicks?: number;
}

/** A line that cannot be a link, and why. */
export interface RejectedLine {
  line: number;
  reason: string;
}

export type ImportLine = ImportedLink | RejectedLine;

export const MAX_TAGS = 50;
const MAX_TAG_LENGTH = 255;
const MAX_CLICKS = 1e15;

/** A column of a CSV format: the header names that denote it (compared by `headerKey`). */
type Field = 'url' | 'path' | 'domain' | 'short' | 'title' | 'tags' | 'created' | 'clicks';

interface CsvFormat {
  columns: Partial<Record<Field, string[]>>;
  /** The fields a file must have (`short` stands for path and domain together). */
  required: Field[];
  tagSeparator: RegExp;
  /** Columns in order when the first line is no header (YOURLS's table dumped without one). */
  headerless?: { first: string; order: (Field | null)[] };
}

/**
 * Where each CSV format's columns come from (docs/api.md, "Importing links", cites each source):
 * - shlink: the web client's "Export" button (shlink-web-component, ExportShortUrlsBtn):
 *   createdAt, domain, shortCode, shortUrl, longUrl, title, tags (joined by `|`), visits;
 * - yourls: the `yourls_url` table (YOURLS, includes/functions-install.php): keyword, url, title,
 *   timestamp, ip, clicks (`ip` is never read), with or without its header line;
 * - bitly: the Bitlink fields of Bitly's exports and API v4 (link/bitlink, long_url, title,
 *   created_at, tags, clicks), under the spellings its CSV files use;
 * - csv: svc's own: url, path, domain, title, tags (joined by `|`), created_at, clicks.
 */
const CSV_FORMATS: Record<Exclude<ImportFormat, 'kutt'>, CsvFormat> = {
  shlink: {
    columns: {
      url: ['longurl'],
      path: ['shortcode'],
      domain: ['domain'],
      short: ['shorturl'],
      title: ['title'],
      tags: ['tags'],
      created: ['createdat', 'datecreated'],
      clicks: ['visits', 'visitscount'],
    },
    required: ['url', 'path'],
    tagSeparator: /\|/,
  },
  yourls: {
    columns: {
      path: ['keyword'],
      url: ['url'],
      title: ['title'],
      created: ['timestamp'],
      clicks: ['clicks'],
    },
    required: ['url', 'path'],
    tagSeparator: /\|/,
    headerless: { first: 'keyword', order: ['path', 'url', 'title', 'created', null, 'clicks'] },
  },
  bitly: {
    columns: {
      short: ['bitlink', 'link', 'shortlink', 'shorturl', 'id'],
      url: ['longurl', 'destinationurl', 'destination', 'originalurl'],
      title: ['title'],
      tags: ['tags'],
      created: ['createdat', 'created', 'datecreated', 'creationdate'],
      clicks: ['clicks', 'totalclicks', 'engagements', 'totalengagements'],
    },
    required: ['url', 'short'],
    tagSeparator: /[|,]/,
  },
  csv: {
    columns: {
      url: ['url'],
      path: ['path'],
      domain: ['domain'],
      title: ['title'],
      tags: ['tags'],
      created: ['createdat'],
      clicks: ['clicks'],
    },
    required: ['url', 'path'],
    tagSeparator: /\|/,
  },
};

/** A header's key: lower case without spaces, `_` or `-` (`Long URL`, `long_url` → `longurl`). */
function headerKey(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}

/** Where each field is in a CSV file's rows, read from its first line. */
export interface CsvLayout {
  positions: Partial<Record<Field, number>>;
  /** The first line held data (a headerless YOURLS dump), not names. */
  firstIsData: boolean;
}

/** The layout a first line gives, or why the file cannot be read as `format`. */
export function csvLayout(format: Exclude<ImportFormat, 'kutt'>, first: string[]): CsvLayout {
  const spec = CSV_FORMATS[format];
  const keys = first.map(headerKey);
  if (spec.headerless && keys[0] !== spec.headerless.first) {
    const positions: CsvLayout['positions'] = {};
    spec.headerless.order.forEach((field, i) => field && (positions[field] = i));
    return { positions, firstIsData: true };
  }
  const positions: CsvLayout['positions'] = {};
  for (const [field, names] of Object.entries(spec.columns) as [Field, string[]][]) {
    const at = keys.findIndex((key) => names.includes(key));
    if (at !== -1) positions[field] = at;
  }
  const missing = spec.required.filter(
    (field) =>
      positions[field] === undefined && !(field === 'path' && positions.short !== undefined),
  );
  if (missing.length > 0) {
    const wanted = missing.map((field) => spec.columns[field]![0]).join(', ');
    throw Errors.invalid('file', `its first line names no column ${wanted}: not a ${format} file`);
  }
  return { positions, firstIsData: false };
}

/** A row of a CSV file as a link, or why it is none. */
export function csvLink(
  format: Exclude<ImportFormat, 'kutt'>,
  layout: CsvLayout,
  line: number,
  fields: string[],
): ImportLine {
  const spec = CSV_FORMATS[format];
  const get = (field: Field) => {
    const at = layout.positions[field];
    const value = at === undefined ? undefined : fields[at]?.trim();
    return value === '' ? undefined : value;
  };
  try {
    let path = get('path');
    let domain = get('domain');
    const short = get('short');
    if (short !== undefined && (path === undefined || domain === undefined)) {
      const parsed = shortLink(short);
      path ??= parsed.path;
      domain ??= parsed.host;
    }
    return link({
      line,
      url: get('url'),
      path,
      domain,
      title: get('title'),
      tags: get('tags')?.split(spec.tagSeparator),
      created: get('created'),
      clicks: get('clicks'),
    });
  } catch (error) {
    return { line, reason: reasonOf(error) };
  }
}

/**
 * The links of one line of a Kutt file: an answer of its API's `GET /api/v2/links` (`{"data":
 * [link, …], "total", …}`), an array of links, or one link (docs/api.md, "Importing links"; Kutt's
 * link: address, target, description, created_at, visit_count, domain, link).
 */
export function kuttLinks(line: number, text: string): ImportLine[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [{ line, reason: 'not JSON' }];
  }
  const page = value as { data?: unknown } | null;
  const list: unknown[] | null = Array.isArray(value)
    ? value
    : typeof page === 'object' && page !== null && Array.isArray(page.data)
      ? page.data
      : null;
  const several = list !== null;
  return (list ?? [value]).map((item, i): ImportLine => {
    const where = several ? { item: i } : {};
    try {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        throw new Error('not a Kutt link (an object with address and target)');
      }
      const k = item as Record<string, unknown>;
      const linkUrl =
        typeof k.link === 'string'
          ? k.link
          : typeof (k.link as { url?: unknown } | null)?.url === 'string'
            ? (k.link as { url: string }).url
            : undefined;
      const domain =
        typeof k.domain === 'string' && k.domain !== ''
          ? k.domain
          : linkUrl !== undefined
            ? shortLink(linkUrl).host
            : undefined;
      return {
        ...link({
          line,
          url: textField(k.target, 'target'),
          path: textField(k.address, 'address'),
          domain,
          title: textField(k.description, 'description'),
          tags: undefined,
          created: textField(k.created_at, 'created_at'),
          clicks: count(k.visit_count),
        }),
        ...where,
      };
    } catch (error) {
      return { line, reason: `${several ? `data[${i}]: ` : ''}${reasonOf(error)}` };
    }
  });
}

function count(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' && typeof value !== 'string')
    throw new Error('visit_count: not a count');
  return String(value);
}

function textField(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`${name}: not a string`);
  return value;
}

/** The host and path of a short link written with or without its scheme (`bit.ly/abc`). */
function shortLink(value: string): { host: string; path: string } {
  let parsed: URL;
  try {
    parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`);
  } catch {
    throw new Error(`short link ${value}: not a URL`);
  }
  const path = parsed.pathname.replace(/^\/+|\/+$/g, '');
  if (path === '') throw new Error(`short link ${value}: has no path`);
  return { host: parsed.host, path };
}

interface RawLink {
  line: number;
  url?: string;
  path?: string;
  domain?: string;
  title?: string;
  tags?: string[];
  created?: string;
  clicks?: string;
}

/** The checks every format shares; the project's (URL, path, domain) come later. */
function link(raw: RawLink): ImportedLink {
  if (raw.url === undefined) throw new Error('no URL to redirect to');
  if (raw.path === undefined) throw new Error('no short path');
  for (const value of [raw.url, raw.path, raw.domain, raw.title, raw.created, raw.clicks]) {
    if (value?.includes('\0')) throw new Error('contains a NUL character');
  }
  const tags = [...new Set((raw.tags ?? []).map((tag) => tag.trim()).filter((tag) => tag !== ''))];
  if (tags.length > MAX_TAGS) throw new Error(`tags: more than ${MAX_TAGS}`);
  const long = tags.find((tag) => tag.length > MAX_TAG_LENGTH || tag.includes('\0'));
  if (long !== undefined)
    throw new Error(`tags: each must be at most ${MAX_TAG_LENGTH} characters`);
  let clicks: number | undefined;
  if (raw.clicks !== undefined) {
    if (!/^\d+$/.test(raw.clicks) || Number(raw.clicks) > MAX_CLICKS) {
      throw new Error(`clicks: ${raw.clicks.slice(0, 40)} is not a count`);
    }
    clicks = Number(raw.clicks);
  }
  return {
    line: raw.line,
    url: raw.url,
    path: raw.path,
    domain: raw.domain,
    title: raw.title,
    tags,
    createdAt: raw.created === undefined ? undefined : parseDate(raw.created, 'created_at'),
    clicks,
  };
}

function reasonOf(error: unknown): string {
  if (error instanceof AppError) return error.message.replace(/^Invalid parameter /, '');
  return (error as Error).message;
}

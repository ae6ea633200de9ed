/**
 * Secrets out of log lines (docs/operations.md, "Logs"). Every line of the service's logger passes
 * through redactValue (createHttpLogger), so no call site has to remember it.
 */

/** What stands in a log line where a secret was. */
export const REDACTED = '[REDACTED]';

/**
 * The parameters that carry secrets: project keys (`key`, `api_key`, the admin echo's `apikey`,
 * `publishable_key`), administration keys, link passwords, and the live feed's stream tokens
 * (`token`, in the stream's URL: docs/api.md, "Live feed").
 */
const SECRET_PARAMETERS = [
  'key',
  'api_key',
  'apikey',
  'publishable_key',
  'subscription_key',
  'application_key',
  'password',
  'token',
] as const;

/**
 * Object members redacted whole, whatever they hold: the secret parameters, and the bound
 * parameters of a failed query (TypeORM's QueryFailedError), which hold keys and visitors' data.
 */
const SECRET_MEMBERS = new Set<string>([...SECRET_PARAMETERS, 'parameters']);

// Longest first, so that `api_key` is never read as `key` (a name is preceded by a non-word character).
const NAMES = '(?:publishable_key|subscription_key|application_key|api_?key|password|token|key)';
// `key[]` and `key[0]`, plain or percent-encoded.
const BRACKETS = '(?:\\[[^\\]\\s&=]{0,16}\\]|%5B[^\\s&=%]{0,16}%5D)*';
// What may stand before a parameter's name: a non-word character, or an encoded `?`, `&` or space.
const BEFORE = '(^|%3F|%26|%20|\\W)';

/** Each rule: a pattern and what replaces it; the captures before the secret are kept. */
const RULES: [RegExp, string][] = [
  // JSON members: "password":"…" (also inside a string that quotes JSON: \"password\":\"…\").
  [
    new RegExp(`"(${NAMES})"\\s*:\\s*(?:"(?:[^"\\\\]|\\\\.)*"|[^,}\\]\\s"]+)`, 'gi'),
    `"$1":"${REDACTED}"`,
  ],
  [
    new RegExp(
      `\\\\"(${NAMES})\\\\"\\s*:\\s*(?:\\\\"(?:(?!\\\\")[^])*?\\\\"|[^,}\\]\\s\\\\]+)`,
      'gi',
    ),
    `\\"$1\\":\\"${REDACTED}\\"`,
  ],
  // Inspected objects: password: '…'.
  [new RegExp(`(^|\\W)(${NAMES})\\s*:\\s*'(?:[^'\\\\]|\\\\.)*'`, 'gi'), `$1$2: '${REDACTED}'`],
  // Query strings and form bodies: key=…, up to the next parameter; once encoded, key%3D… up to %26.
  [new RegExp(`${BEFORE}(${NAMES}${BRACKETS})=[^&\\s"'#<>]*`, 'gi'), `$1$2=${REDACTED}`],
  [
    new RegExp(`${BEFORE}(${NAMES}${BRACKETS})%3D(?:(?!%26)[^&\\s"'#<>])*`, 'gi'),
    `$1$2%3D${REDACTED}`,
  ],
  // PostgreSQL's details: Key (api_key)=(…) already exists.
  [new RegExp(`\\((${NAMES})\\)=\\([^)]*\\)`, 'gi'), `($1)=(${REDACTED})`],
  // The administration's paths name the project by its API key: /projects/<api_key>/show (not
  // /projects/new or /list, nor a source file of a stack trace, src/projects/projects.service.ts).
  [
    /(\/projects\/)(?!(?:new|list)(?:[/?#\s"'&]|$)|[\w.-]+\.[cm]?[jt]s\b)[^/?#\s"'&]+/gi,
    `$1${REDACTED}`,
  ],
  // A project API key (64 hex characters) or a publishable key (pk_…) wherever it stands.
  [/(?<![0-9A-Za-z])[0-9A-Fa-f]{64}(?![0-9A-Za-z])/g, REDACTED],
  [/(?<![0-9A-Za-z])pk_[0-9A-Za-z]{16,}/g, REDACTED],
];

/**
 * What every rule's match holds (a parameter's name, an administration path, a key's hex digits or
 * `pk_`): a text without any of it, as most log lines are, is returned after this one pass.
 */
const MAY_HOLD_SECRET = /key|password|token|\/projects\/|pk_|[0-9A-Fa-f]{64}/i;

/** A text without the secrets it may quote: paths, query strings, bodies, error messages. */
export function redactText(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let result = text;
  for (const [pattern, replacement] of RULES) result = result.replace(pattern, replacement);
  return result;
}

/** Deeper than this, a logged value is cut (log objects are shallow; a cycle must still end). */
const MAX_DEPTH = 8;

/**
 * A value to log without secrets: strings through redactText, members named for a secret replaced
 * whole, errors as their type, message, stack and own members (as pino writes them), each redacted.
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return '[Object]';
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  // A Date, a Buffer, a URL: what JSON would write of it.
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return redactValue(toJSON.call(value), depth + 1);
  const source =
    value instanceof Error
      ? Object.assign({ type: value.name, message: value.message, stack: value.stack }, value)
      : value;
  const result: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(source)) {
    result[name] = SECRET_MEMBERS.has(name.toLowerCase())
      ? REDACTED
      : redactValue(typeof member === 'function' ? undefined : member, depth + 1);
  }
  return result;
}

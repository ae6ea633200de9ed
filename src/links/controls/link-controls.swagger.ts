/** Where link controls are taken: create, batch (one value for every link), static and update. */
const ONLY: ('create' | 'batch' | 'static' | 'update')[] = ['create', 'batch', 'static', 'update'];

const UPDATE_CLEARS = 'on update, an empty value removes it';

/** The link control parameters (docs/api.md, "Link controls") as Swagger documents them. */
export const CONTROL_PARAMETERS = [
  {
    name: 'expires_at',
    description: `Extension (link control): the link expires at this time (ISO 8601 or UNIX seconds, to the second; must be in the future); ${UPDATE_CLEARS}`,
    example: '2026-12-31T23:59:59Z',
  },
  {
    name: 'max_clicks',
    description: `Extension (link control): the link expires after this many counted (human) clicks, a positive integer; ${UPDATE_CLEARS}`,
    example: '1000',
  },
  {
    name: 'expired_url',
    description: `Extension (link control): where visitors of an expired link go (absolute http(s) URL, at most 4,096 characters; default: the domain's not-found answer); ${UPDATE_CLEARS}`,
  },
  {
    name: 'disabled',
    description:
      'Extension (link control): true makes the link answer as not found (its statistics stay); false enables it again',
  },
  {
    name: 'ios_url',
    description: `Extension (link control): the target for iPhone, iPad and iPod user agents (absolute http(s) URL, at most 4,096 characters); ${UPDATE_CLEARS}`,
  },
  {
    name: 'android_url',
    description: `Extension (link control): the target for Android user agents (absolute http(s) URL, at most 4,096 characters); ${UPDATE_CLEARS}`,
  },
  {
    name: 'geo',
    description: `Extension (link control): a JSON object of country code (ISO 3166-1 alpha-2) → absolute http(s) URL of at most 4,096 characters, at most 50 countries and 16 KB of JSON in all; the visitor's country picks the target before ios_url/android_url; ${UPDATE_CLEARS} (or {})`,
    example: '{"US":"https://example.com/us","DE":"https://example.com/de"}',
  },
  {
    name: 'password',
    description: `Extension (link control): visitors must give this password (1 to 256 characters) in a form before the redirect; stored as a salted scrypt hash, never returned (the record shows password_protected); ${UPDATE_CLEARS}`,
  },
].map((parameter) => ({ ...parameter, only: ONLY }));

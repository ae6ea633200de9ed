import { CONTROLS, ControlParameter } from './link-control-columns';

/** Where link controls are taken: create, batch (one value for every link), static and update. */
const ONLY: ('create' | 'batch' | 'static' | 'update')[] = ['create', 'batch', 'static', 'update'];

const UPDATE_CLEARS = 'on update, an empty value removes it';

interface ControlDoc {
  description: string;
  example?: string;
}

/** How Swagger documents each link control parameter (docs/api.md, "Link controls"). */
const DOCS: Record<ControlParameter, ControlDoc> = {
  expires_at: {
    description: `Extension (link control): the link expires at this time (ISO 8601 or UNIX seconds, to the second; must be in the future); ${UPDATE_CLEARS}`,
    example: '2026-12-31T23:59:59Z',
  },
  max_clicks: {
    description: `Extension (link control): the link expires after this many counted (human) clicks, a positive integer; ${UPDATE_CLEARS}`,
    example: '1000',
  },
  expired_url: {
    description: `Extension (link control): where visitors of an expired link go (absolute http(s) URL, at most 4,096 characters; default: the domain's not-found answer); ${UPDATE_CLEARS}`,
  },
  disabled: {
    description:
      'Extension (link control): true makes the link answer as not found (its statistics stay); false enables it again',
  },
  ios_url: {
    description: `Extension (link control): the target for iPhone, iPad and iPod user agents (absolute http(s) URL, at most 4,096 characters); ${UPDATE_CLEARS}`,
  },
  android_url: {
    description: `Extension (link control): the target for Android user agents (absolute http(s) URL, at most 4,096 characters); ${UPDATE_CLEARS}`,
  },
  geo: {
    description: `Extension (link control): a JSON object of country code (ISO 3166-1 alpha-2) → absolute http(s) URL of at most 4,096 characters, at most 50 countries and 16 KB of JSON in all; the visitor's country picks the target before ios_url/android_url; ${UPDATE_CLEARS} (or {})`,
    example: '{"US":"https://example.com/us","DE":"https://example.com/de"}',
  },
  password: {
    description: `Extension (link control): visitors must give this password (1 to 256 characters) in a form before the redirect; stored as a salted scrypt hash, never returned (the record shows password_protected); ${UPDATE_CLEARS}`,
  },
};

/** The link control parameters as Swagger documents them, in CONTROLS' order. */
export const CONTROL_PARAMETER_DOCS = CONTROLS.map(({ parameter }) => ({
  name: parameter,
  ...DOCS[parameter],
  only: ONLY,
}));

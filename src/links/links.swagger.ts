import { applyDecorators } from '@nestjs/common';
import { ApiQuery, ApiResponseOptions } from '@nestjs/swagger';
import { BATCH_ARRAY_PARAMETERS } from './link-input';
import { CONTROL_PARAMETER_DOCS } from './controls/link-controls.swagger';

/** share takes create's parameters but path (one link per share action, on a generated path). */
type Kind = 'create' | 'batch' | 'static' | 'update' | 'share';

interface ParameterDoc {
  name: string;
  description: string;
  example?: string;
  required?: Kind[];
  only?: Kind[];
}

const PARAMETERS: ParameterDoc[] = [
  {
    name: 'v',
    description: 'API version: 3',
    example: '3',
    required: ['create', 'batch', 'static', 'update', 'share'],
  },
  {
    name: 'key',
    description:
      'Project API key (64 hex characters); retweet and share also take the publishable key (pk_…), never with a link control',
    required: ['create', 'batch', 'static', 'update', 'share'],
  },
  {
    name: 'tool',
    description:
      'Key of the creation (or update) method; an unknown key is registered on first use',
    example: 'publisher-sharebar',
    required: ['create', 'batch', 'static', 'update', 'share'],
  },
  {
    name: 'channel',
    description: 'Where the link is shared; its service is derived from it',
    example: 'twitter',
    required: ['create', 'batch', 'share'],
  },
  {
    name: 'url',
    description: 'Absolute http(s) address of the page shared (subject to redirection patterns)',
    example: 'https://example.com/article',
    required: ['create', 'batch', 'static', 'share'],
    only: ['create', 'batch', 'static', 'share'],
  },
  {
    name: 'url',
    description:
      'Accepted and ignored when it is an absolute http(s) URL (clients of the original interface send it on every update): original_url never changes; a malformed url is a 400',
    example: 'https://example.com/article',
    only: ['update'],
  },
  {
    name: 'campaign',
    description:
      'Low-cardinality label, stubified (a-z0-9_-); the submitted value becomes the campaign name',
    example: 'Spring Sale',
  },
  {
    name: 'campaign_description',
    description: 'Needs campaign; required when the campaign is first created',
  },
  {
    name: 'campaign_name',
    description: 'Needs campaign; defaults to the non-stubified campaign value',
  },
  { name: 'notes', description: 'Free text, at most 256 characters' },
  {
    name: 'parent',
    description:
      'svc_id of the link that drove the visit; implicit when url is a link of this project or carries svc=<svc_id>',
  },
  {
    name: 'service_userid',
    description:
      'service:user_id, the service matching the channel’s (a bare numeric id on a known channel gets the prefix)',
    example: 'twitter:12345',
  },
  {
    name: 'sharer_id',
    description: 'sharer_id of a user of the project (the link gets their username)',
  },
  { name: 'tag', description: 'Case-sensitive high-cardinality label' },
  ...[2, 3, 4, 5].map((n) => ({
    name: `tag_${n}`,
    description: `Multi-value tag field (tag_${n}[]=a&tag_${n}[]=b), values up to 255 characters`,
  })),
  { name: 'user_id', description: 'Your user id, case-sensitive' },
  { name: 'user_id_username', description: 'Needs user_id; kept for the project’s user identity' },
  { name: 'user_id_icon_url', description: 'Needs user_id; absolute URL' },
  { name: 'user_id_profile_url', description: 'Needs user_id; absolute URL' },
  {
    name: 'domain',
    description:
      'Custom domain of the link (default: the project’s default domain); 403 when the project has no access',
    only: ['create', 'batch', 'static', 'share'],
  },
  {
    name: 'path',
    description:
      'Wanted path of the link (409 when taken on that domain); discouraged where tracking matters',
    only: ['create', 'batch', 'static'],
  },
  {
    name: 'service_postid',
    description: 'service:post_id of the share',
    example: 'twitter:987654321',
  },
  {
    name: 'service_postid_reach',
    description: 'Followers or fans of the sharer at share time (integer)',
  },
  {
    name: 'service_postid_shared_at',
    description: 'When the post was shared (date, ISO 8601 timestamp or UNIX seconds)',
  },
  ...CONTROL_PARAMETER_DOCS,
];

/** Batch parameters that may be arrays (name[]=… or the name repeated); only one of them per request. */
const BATCH_ARRAYS = new Set<string>(BATCH_ARRAY_PARAMETERS);

/** The link-creation parameters as Swagger query parameters for an endpoint kind. */
export function ApiLinkParameters(kind: Kind): MethodDecorator {
  return applyDecorators(
    ...PARAMETERS.filter((p) => !p.only || p.only.includes(kind)).map((p) =>
      ApiQuery({
        ...(kind === 'batch' && BATCH_ARRAYS.has(p.name)
          ? {
              schema: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
            }
          : { type: String }),
        name: p.name,
        required: p.required?.includes(kind) ?? false,
        description: p.description,
        example: p.example,
      }),
    ),
  );
}

export const LINK_ERRORS: ApiResponseOptions = {
  status: 400,
  description:
    'Bad parameter (named in error_message), unsupported format, missing v/key/tool/channel/url. Also: 403 invalid API key, a publishable key where it may not go (or with a link control), or domain not available, 404 unknown link (update), 409 path taken, 429 rate limit.',
  schema: {
    example: {
      error: 400,
      error_message: 'Invalid parameter notes: must be at most 256 characters',
    },
  },
};

/** retweet's parameters: the metadata ones plus text and its options (destination on GET only). */
export function ApiRetweetParameters(get: boolean): MethodDecorator {
  const extra: ParameterDoc[] = [
    {
      name: 'text',
      description:
        'The text whose links beginning http:// are replaced by new links (https:// ones stay)',
      example: 'Read this http://example.com/a',
      required: ['create'],
    },
    {
      name: 'make_parent',
      description: 'Default true: links of this service in text become parents of the new links',
    },
    {
      name: 'unwrap',
      description: 'Default false: when true, links are crawled to their final destination first',
    },
  ];
  if (get) {
    extra.push(
      {
        name: 'destination',
        description:
          'GET only: redirect (302) here with every SVC_TEXT replaced by the new text and every SVC_URL by the first new link; encode & and # inside as %26 and %23',
        example: 'https://twitter.com/intent/tweet?text=SVC_TEXT',
      },
      {
        name: 'errors',
        description:
          'Default false: with destination, a failure still redirects (with the original text); true answers the error',
      },
    );
  }
  return applyDecorators(
    ...[...PARAMETERS.filter((p) => !p.only && p.name !== 'path'), ...extra].map((p) =>
      ApiQuery({
        type: String,
        name: p.name,
        required: p.required?.includes('create') ?? false,
        description: p.description,
        example: p.example,
      }),
    ),
    ApiQuery({ name: 'domain', required: false, description: 'Custom domain of the new links' }),
  );
}

import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];
export type LinkRecord = Schemas['LinkRecordDto'];
export type ProjectRecord = Schemas['ProjectRecordDto'];
export type DomainRecord = Schemas['DomainRecordDto'];
export type AggregateResponse = Schemas['AggregateResponseDto'];
export type GroupObject = Schemas['GroupDto'];
/** A link's cascade (docs/api.md, "Share chains (extension)"): stats/{svc_id}/chain.json. */
export type ChainResponse = Schemas['ChainResponseDto'];
/** A direct reshare of a link in its cascade, with its own and downstream figures. */
export type ChainChild = Schemas['ChainChildDto'];
/** Whose click or conversion it is: the link clicked (last, the default) or its cascade's root. */
export type Attribution = NonNullable<Schemas['AggregateResponseDto']['attribution']>;
/** A range group with with_chain=true: its chain figures always there. */
export type ChainGroup = GroupObject & { chain: Schemas['ChainFiguresDto'] };

/**
 * Keys never travel in a URL: a POST's query parameters (how the OpenAPI document declares the
 * link and stats parameters, which the API reads from a form body as well) are moved into an
 * `application/x-www-form-urlencoded` body, so they stay out of access logs and browser history.
 */
const formBodies: Middleware = {
  onRequest({ request }) {
    const url = new URL(request.url);
    if (request.method !== 'POST' || url.search === '') return undefined;
    const body = url.searchParams.toString();
    url.search = '';
    return new Request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
      signal: request.signal,
    });
  },
};

/** Form-encodes a request body object (administration endpoints take form fields). */
function formSerializer(body: unknown): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    form.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form.toString();
}

export const api = createClient<paths>({
  baseUrl: window.location.origin,
  bodySerializer: formSerializer,
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  // Array parameters as the API reads them: name[]=a&name[]=b.
  querySerializer: { array: { style: 'form', explode: true } },
});
api.use(formBodies);

/** The two error shapes of the API (docs/api.md, "Errors") as one message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function errorMessage(status: number, body: unknown): string {
  const b = body as
    { error_message?: string; error?: { message?: string; code?: number } } | undefined;
  const message = b?.error_message ?? b?.error?.message;
  if (status === 403 && message?.includes('Invalid API key')) {
    return `${message}: check the key you signed in with`;
  }
  return message ?? `The service answered ${status}`;
}

/** The data of an openapi-fetch answer, or an ApiError with the API's message. */
export async function call<T>(
  promise: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  let result;
  try {
    result = await promise;
  } catch {
    throw new ApiError(0, 'The service cannot be reached: check your connection');
  }
  if (result.data === undefined || !result.response.ok) {
    throw new ApiError(result.response.status, errorMessage(result.response.status, result.error));
  }
  return result.data;
}

/**
 * One page of a link's cascade (docs/api.md, "Share chains (extension)"): its own and downstream
 * figures, its generations and its direct reshares, all time.
 */
export function fetchChain(
  key: string,
  svcId: string,
  page: { page: number; per_page: number },
): Promise<ChainResponse> {
  return call(
    api.POST('/stats/{svc_id}/chain.json', {
      params: { path: { svc_id: svcId }, query: { v: '3', key, ...page } },
    }),
  );
}

type RangeQuery = NonNullable<paths['/stats/range.json']['post']['parameters']['query']>;

/**
 * stats/range.json with `with_chain=true`: each group's figures and the activity of every
 * descendant of its links; an ApiError if a group comes without its chain figures.
 */
export async function fetchRangeWithChain(
  query: Omit<RangeQuery, 'with_chain'>,
): Promise<Omit<AggregateResponse, 'groups'> & { groups: ChainGroup[] }> {
  const answer = await call(
    api.POST('/stats/range.json', { params: { query: { ...query, with_chain: 'true' } } }),
  );
  const groups = answer.groups.filter((g): g is ChainGroup => g.chain !== undefined);
  if (groups.length !== answer.groups.length) {
    throw new ApiError(200, 'The service answered groups without their chain figures');
  }
  return { ...answer, groups };
}

import createClient, { type Middleware } from 'openapi-fetch';
import type { ChainAggregateResponse, ChainResponse, ChainSortType } from './chains';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];
export type LinkRecord = Schemas['LinkRecordDto'];
export type ProjectRecord = Schemas['ProjectRecordDto'];
export type DomainRecord = Schemas['DomainRecordDto'];
export type AggregateResponse = Schemas['AggregateResponseDto'];
export type GroupObject = Schemas['GroupDto'];

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

/** Form parameters of a request the generated client does not describe (undefined ones left out). */
type FormParams = Record<string, string | number | undefined>;

/**
 * POSTs form parameters to an endpoint of an extension that openapi.json does not describe yet (the
 * generated client cannot name it): the same form body and errors as `call`.
 */
async function postForm<T>(path: string, params: FormParams): Promise<T> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) body.set(name, String(value));
  }
  let response: Response;
  try {
    response = await fetch(new URL(path, window.location.origin), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    });
  } catch {
    throw new ApiError(0, 'The service cannot be reached: check your connection');
  }
  const data: unknown = await response.json().catch(() => undefined);
  if (!response.ok || data === undefined) {
    throw new ApiError(response.status, errorMessage(response.status, data));
  }
  return data as T;
}

/**
 * One page of a link's cascade (docs/api.md, "Share chains (extension)"): its own and downstream
 * figures, its generations and its direct children, all time unless a window is given.
 */
export function fetchChain(
  key: string,
  svcId: string,
  page: { page: number; per_page: number },
  period: { start_date?: string; end_date?: string } = {},
): Promise<ChainResponse> {
  return postForm(`/stats/${encodeURIComponent(svcId)}/chain.json`, {
    v: '3',
    key,
    ...period,
    ...page,
  });
}

/**
 * stats/range.json with `with_chain=true`: each group's figures and the activity of every
 * descendant of its links. The query is range's (key, period, filters, group_by, pages).
 */
export function fetchRangeWithChain(
  query: FormParams & { sort_type: ChainSortType | Schemas['SortType'] },
): Promise<ChainAggregateResponse> {
  return postForm('/stats/range.json', { ...query, with_chain: 'true' });
}

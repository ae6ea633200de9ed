import { ApiError, errorMessage } from './client';

/**
 * A token that opens one stream of the live feed (docs/api.md, "Live feed"). The api_key goes in
 * the POST's form body, never in a URL: EventSource sends no header, so the stream's URL carries
 * this short-lived, single-use token instead of the key.
 */
export async function fetchStreamToken(apiKey: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch('/events/stream/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ key: apiKey }).toString(),
    });
  } catch {
    throw new ApiError(0, 'The service cannot be reached: check your connection');
  }
  const body: unknown = await res.json().catch(() => undefined);
  const token = (body as { token?: unknown } | undefined)?.token;
  if (!res.ok || typeof token !== 'string') {
    throw new ApiError(res.status, errorMessage(res.status, body));
  }
  return token;
}

/** The stream's URL: a fresh token, and the last event seen when resuming after a cut. */
export function streamUrl(token: string, lastEventId: string | null): string {
  const query = new URLSearchParams({ token });
  if (lastEventId !== null) query.set('last_event_id', lastEventId);
  return `/events/stream?${query.toString()}`;
}

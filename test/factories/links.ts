import type { LinkRecord } from '../../src/links/link-record';
import { TestApp } from '../support/app';

/**
 * Every field of the link record of docs/api.md, "Tracked links" (create, batch, retweet; static
 * adds `new`, update `updated_at`).
 */
export const LINK_FIELDS = [
  'svc_url',
  'svc_id',
  'domain',
  'path',
  'created_at',
  'redirect_url',
  'original_url',
  'channel',
  'service',
  'tool',
  'application',
  'parent',
  'sharer_id',
  'username',
  'service_userid',
  'service_postid',
  'service_postid_metadata',
  'campaign',
  'campaign_metadata',
  'user_id',
  'user_id_metadata',
  'tag',
  'notes',
].sort();

export const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** A form (or query) body from ordered pairs, so `name[]=value` arrays keep their exact spelling. */
export function form(pairs: [string, string][]): string {
  return pairs
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
}

/** Creates one link through POST url.json and returns its record; fails the test on any other status. */
export async function createLink(
  t: TestApp,
  key: string,
  params: Record<string, string> = {},
): Promise<LinkRecord> {
  const res = await t.http
    .post('/url.json')
    .type('form')
    .send({
      v: '3',
      key,
      tool: 'publisher-sharebar',
      channel: 'twitter',
      url: 'https://example.com/page',
      ...params,
    });
  if (res.status !== 200)
    throw new Error(`url.json answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as LinkRecord;
}

import { isbot } from 'isbot';

/**
 * HTTP client libraries and command-line tools: isbot lists them, but they are how server-side
 * applications call the API (docs/api.md, "Tracked links") and how people try links, not crawlers.
 */
const HTTP_CLIENT_RE =
  /^(curl|wget|httpie|python-requests|python-urllib|python-httpx|aiohttp|axios|node-fetch|node|undici|got|okhttp|go-http-client|java|apache-httpclient|jakarta|postmanruntime|insomnia|k6|libwww-perl|ruby|faraday|rest-client|guzzlehttp|php|dart|reqwest|supertest)\b/i;

/**
 * Known crawlers, preview fetchers and monitors (isbot's list) — but not generic HTTP clients.
 * Used for the retweet/share blacklist and the bot flag of clicks.
 */
export function isCrawler(userAgent: string | undefined | null): boolean {
  if (!userAgent) return false;
  // isbot's pattern is the costliest step of a click; visitors send few distinct agents.
  let crawler = verdicts.get(userAgent);
  if (crawler === undefined) {
    crawler = isbot(userAgent) && !HTTP_CLIENT_RE.test(userAgent.trim());
    if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
    verdicts.set(userAgent, crawler);
  }
  return crawler;
}

/** Verdicts remembered per user agent (emptied when full). */
const VERDICTS_KEPT = 1000;
const verdicts = new Map<string, boolean>();

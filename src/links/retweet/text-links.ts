import { isHttpUrl } from '../../common/validators';

export interface TextLink {
  url: string;
  start: number;
  end: number;
}

// docs/api.md, "Tracked links": only links beginning http:// are recognised (an https:// link
// stays as it is).
/** The longest text retweet scans, on every path (docs/api.md, "Security": the text cap). */
export const TEXT_MAX = 100_000;

/** The most links one retweet makes (docs/api.md, "Security": bounded work): each is a new link. */
export const TEXT_LINKS_MAX = 50;

const LINK_RE = /\bhttp:\/\/[^\s<>"'`]+/gi;
const PUNCTUATION = new Set(['.', ',', ';', ':', '!', '?', "'", '"', '»', '”', '’']);
const OPENER: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

/**
 * The links of a text, in order, with their positions. Sentence punctuation after a link is not
 * part of it, nor is a closing bracket that has no opening one inside the link. Text that looks
 * like a link but does not parse as a URL is left alone (not replaced). Linear in the text
 * (docs/api.md, "Security": linear-time parsing): the candidates do not overlap, and each is
 * trimmed in one backward walk over bracket counts kept as it shrinks.
 */
export function extractLinks(text: string): TextLink[] {
  const links: TextLink[] = [];
  for (const match of text.matchAll(LINK_RE)) {
    const url = match[0].slice(0, trimmedLength(match[0]));
    // A link that is no URL (a port over 65535, a broken escape or punycode label) stays as it is.
    if (/^http:\/\/[^/?#]+/i.test(url) && isHttpUrl(url)) {
      links.push({ url, start: match.index, end: match.index + url.length });
    }
  }
  return links;
}

/**
 * The candidate's length without its trailing sentence punctuation and unmatched closing brackets:
 * repeatedly, the punctuation at the end goes, then a closing bracket that outnumbers its opening
 * one in what is left.
 */
function trimmedLength(candidate: string): number {
  const counts: Record<string, number> = { '(': 0, ')': 0, '[': 0, ']': 0, '{': 0, '}': 0 };
  for (const char of candidate) if (char in counts) counts[char] += 1;
  let end = candidate.length;
  for (;;) {
    while (end > 0 && PUNCTUATION.has(candidate[end - 1])) end -= 1;
    const last = candidate[end - 1];
    const opener = OPENER[last];
    if (opener === undefined || counts[last] <= counts[opener]) return end;
    counts[last] -= 1;
    end -= 1;
  }
}

/** The text with each link replaced (replacements in link order). */
export function replaceLinks(text: string, links: TextLink[], replacements: string[]): string {
  let out = '';
  let cursor = 0;
  links.forEach((link, i) => {
    out += text.slice(cursor, link.start) + replacements[i];
    cursor = link.end;
  });
  return out + text.slice(cursor);
}

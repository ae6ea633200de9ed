import { isHttpUrl } from '../common/validators';

export interface TextLink {
  url: string;
  start: number;
  end: number;
}

// docs/api.md, "Tracked links": only links beginning http:// are recognised (an https:// link
// stays as it is).
const LINK_RE = /\bhttp:\/\/[^\s<>"'`]+/gi;
const TRAILING = /[.,;:!?'"»”’]+$/;

/**
 * The links of a text, in order, with their positions. Sentence punctuation after a link is not
 * part of it, nor is a closing bracket that has no opening one inside the link. Text that looks
 * like a link but does not parse as a URL is left alone (not replaced).
 */
export function extractLinks(text: string): TextLink[] {
  const links: TextLink[] = [];
  for (const match of text.matchAll(LINK_RE)) {
    let url = match[0];
    for (;;) {
      const trimmed = url.replace(TRAILING, '');
      const last = trimmed.at(-1);
      const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
      if (last && pairs[last] && count(trimmed, last) > count(trimmed, pairs[last])) {
        url = trimmed.slice(0, -1);
        continue;
      }
      url = trimmed;
      break;
    }
    // A link that is no URL (a port over 65535, a broken escape or punycode label) stays as it is.
    if (/^http:\/\/[^/?#]+/i.test(url) && isHttpUrl(url)) {
      links.push({ url, start: match.index, end: match.index + url.length });
    }
  }
  return links;
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
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

import { Inject, Injectable, Optional } from '@nestjs/common';
import { Lru } from '../common/lru';
import { InvalidationBus } from '../queue/invalidation-bus';
import { AnalyticsClient, fromChTime } from './analytics-client';
import { STAMP_COLUMNS, STAMP_SOURCE_COLUMNS } from './analytics-schema';

/** How long a link's stamp is reused before it is read again (a stamp of an older version is still right: see below). */
export const STAMP_TTL_MS = 60_000;
/** Links whose stamps a process keeps at most (the least recently read are dropped first). */
export const STAMP_CACHE_SIZE = 100_000;

/**
 * The stamp of a link the mirror does not hold (a link made before the mirror): version 0, empty
 * attributes, no chain (chain_stamped 0).
 */
export const UNSTAMPED = STAMP_COLUMNS.map(([, type]) => emptyValue(type)).join('\t');

function emptyValue(type: string): string {
  if (type.startsWith('UInt')) return '0';
  if (type.includes('Nullable')) return '\\N';
  if (type.startsWith('Array')) return '[]';
  if (type.startsWith('DateTime64')) return '1970-01-01 00:00:00.000';
  return '';
}

/**
 * A stamp's values, in STAMP_COLUMNS' order, for a Native block (click-native-block.ts): the
 * version as its decimal text, arrays as arrays (ancestors as decimal texts), null for null, the
 * shared time in ms, chain_stamped as a number.
 */
export type StampFields = readonly (string | number | null | readonly string[])[];

/** Stamps' fields already read from their lines (stampFields), by line. */
const parsedStamps = new Lru<StampFields>(STAMP_CACHE_SIZE);

/**
 * A stamp's values (StampFields) read from its TabSeparated fields as the engine writes them
 * (formatRowNoNewline): null as `\N`; a string with backslash escapes; an array as its elements in
 * single quotes, with the same escapes, between brackets; the shared time as
 * 'YYYY-MM-DD hh:mm:ss.sss'. Kept by line, so a link's stamp is read once while its line is kept.
 */
export function stampFields(line: string): StampFields {
  if (line === UNSTAMPED) return UNSTAMPED_FIELDS;
  const kept = parsedStamps.get(line, 0);
  if (kept) return kept.value;
  const fields = parseStamp(line);
  parsedStamps.set(line, fields, Infinity, 0);
  return fields;
}

function parseStamp(line: string): StampFields {
  const texts = line.split('\t');
  if (texts.length !== STAMP_COLUMNS.length)
    throw new Error(`a stamp of ${texts.length} fields, not ${STAMP_COLUMNS.length}`);
  return STAMP_COLUMNS.map(([, type], j) => {
    const text = texts[j];
    if (type === 'Array(UInt64)') return idsOf(text);
    if (type === 'UInt8') return Number(text);
    if (type.startsWith('Array')) return arrayOf(text);
    if (text === '\\N' && type.includes('Nullable')) return null;
    if (type.startsWith('DateTime64')) return fromChTime(text).getTime();
    return unescapeText(text);
  });
}

const ESCAPES: Record<string, string> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  '0': '\0',
};

function unescapeText(text: string): string {
  return text.includes('\\') ? text.replace(/\\(.)/gs, (_, c: string) => ESCAPES[c] ?? c) : text;
}

/** An array of UInt64 as the engine writes it, `[1,2]`: the numbers as decimal texts. */
function idsOf(text: string): string[] {
  if (!/^\[(?:\d+(?:,\d+)*)?\]$/.test(text)) throw new Error(`a stamp array not of ids: ${text}`);
  return text === '[]' ? [] : text.slice(1, -1).split(',');
}

/** An array of strings as the engine writes it: `['a','b\'c']`. */
function arrayOf(text: string): string[] {
  const values: string[] = [];
  if (text === '[]') return values;
  let i = 1;
  for (;;) {
    if (text[i] !== "'") throw new Error(`a stamp array that is not one of strings: ${text}`);
    let end = i + 1;
    while (text[end] !== "'") {
      if (end >= text.length) throw new Error(`a stamp array without its end: ${text}`);
      end += text[end] === '\\' ? 2 : 1;
    }
    values.push(unescapeText(text.slice(i + 1, end)));
    if (text[end + 1] === ']') return values;
    if (text[end + 1] !== ',') throw new Error(`a stamp array that is not one of strings: ${text}`);
    i = end + 2;
  }
}

/**
 * The stamps events are stored with: a link's version in the mirror (`links`) and its attributes at
 * that version (LINK_STAMP_COLUMNS), then its chain (`link_chains`; CHAIN_STAMP_COLUMNS), as
 * TabSeparated fields written by the engine itself (formatRowNoNewline), so a stamp is exactly what
 * the mirror holds. The mirror writes a link's chain before its attributes (LinkMirror), so a link
 * found in `links` has its chain, or none as a root. A chain stamped before a move is corrected
 * by statistics (`chain_moves`) for as long as it may be used. A stamp is right whatever version
 * it carries: statistics group an event by its stamp only while the stamp's version is its link's
 * latest (`link_updates`), and by the link's latest attributes otherwise. So stamps are kept for a
 * minute per process, and an update shows at once in every statistic all the same.
 */
@Injectable()
export class LinkStamps {
  private readonly cache = new Lru<string>(STAMP_CACHE_SIZE);

  constructor(
    @Inject(AnalyticsClient) private readonly analytics: AnalyticsClient,
    @Optional() @Inject(InvalidationBus) invalidation?: InvalidationBus,
  ) {
    // Stamps erased in place (an erasure of their sharer) are dropped by every process at once
    // (`stamps`, by link id); after a reconnect, which may have missed some, all of them.
    invalidation?.register({
      kinds: ['stamps'],
      drop: (_kind, links) => this.forget(links),
      dropAll: () => this.cache.clear(),
    });
  }

  /** The stamp of each link (by id) of the projects: one read of `links` for those not kept. */
  async of(projects: readonly string[], links: Iterable<string>): Promise<Map<string, string>> {
    const now = Date.now();
    const stamps = new Map<string, string>();
    const missing: string[] = [];
    for (const link of links) {
      if (stamps.has(link)) continue;
      const kept = this.cache.get(link, now);
      if (kept) stamps.set(link, kept.value);
      else {
        stamps.set(link, UNSTAMPED);
        missing.push(link);
      }
    }
    if (missing.length === 0) return stamps;
    const db = this.analytics.database;
    const rows = await this.analytics.query<{ id: string; stamp: string }>(
      `SELECT toString(l.link_id) AS id,
              formatRowNoNewline('TabSeparated', ${STAMP_SOURCE_COLUMNS.map((c) => `l.${c}`).join(', ')},
                                 toUInt8(1), c.ancestors) AS stamp
       FROM ${db}.links AS l FINAL
       LEFT JOIN (SELECT link_id, ancestors FROM ${db}.link_chains FINAL
                  WHERE project_id IN {projects:Array(UUID)} AND link_id IN {links:Array(UInt64)}) AS c
         ON c.link_id = l.link_id
       WHERE l.project_id IN {projects:Array(UUID)} AND l.link_id IN {links:Array(UInt64)}`,
      { projects, links: missing.map(Number) },
    );
    for (const row of rows) stamps.set(row.id, row.stamp);
    for (const link of missing) this.cache.set(link, stamps.get(link)!, STAMP_TTL_MS, now);
    return stamps;
  }

  /**
   * Drops the kept stamps of links (by id) whose attributes were erased in place (an erasure of
   * their sharer, docs/api.md, "Erasure"; every process hears it through the `stamps` kind of
   * the InvalidationBus): the next events of this process read them again.
   */
  forget(links: Iterable<string>): void {
    for (const link of links) this.cache.delete(link);
  }
}

/** The fields of UNSTAMPED (read as any stamp is). */
export const UNSTAMPED_FIELDS: StampFields = parseStamp(UNSTAMPED);

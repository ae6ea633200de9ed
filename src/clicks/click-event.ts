import { randomBytes } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** This process's 48 random bits, the last group of every click id it makes. */
const NODE = randomBytes(6).toString('hex');
/** Sequence numbers run over 26 bits (then wrap). */
const SEQUENCE_SPAN = 0x4000000;
/** A 26-bit sequence, shared by every millisecond (so ids stay unique while the clock stands still). */
let sequence = randomBytes(4).readUInt32BE(0) % SEQUENCE_SPAN;
let prefixMs = -1;
let prefix = '';

/**
 * The next click sequence number of this process. A redirect records it instead of an id: the id
 * (clickIdOf) is only spelled out where a click leaves the process as one — on the spool — or where
 * it is stored.
 */
export function nextClickSequence(): number {
  const n = sequence;
  sequence = (n + 1) % SEQUENCE_SPAN;
  return n;
}

/**
 * A click id: a UUID version 7 (RFC 9562) with the millisecond time in its first 48 bits, a 26-bit
 * sequence in rand_a and the low bits of the variant group ("fixed-length dedicated counter",
 * method 1), and 48 random bits of the process that recorded it (`node`) in the last group. Ids
 * sort in time order (the clicks' sorting key and deduplication look-ups grow at their end), ids never repeat within a
 * process unless 67 million clicks fall in one millisecond, and processes differ by their random
 * bits. Built from lookup tables: randomUUID and hex formatting cost the redirect path more.
 */
export function clickIdOf(at: number, seq: number, node = NODE): string {
  if (at !== prefixMs) {
    prefixMs = at;
    const time = at.toString(16).padStart(12, '0');
    prefix = `${time.slice(0, 8)}-${time.slice(8, 12)}-7`;
  }
  const high = seq >>> 14; // 12 bits: rand_a
  const low = 0x8000 | (seq & 0x3fff); // variant 10, then 14 bits
  return `${prefix}${HEX[high >>> 8][1]}${HEX[high & 0xff]}-${HEX[low >>> 8]}${HEX[low & 0xff]}-${node}`;
}

/** One visit of a link, as the redirect layer records it and the click job carries it. */
export interface ClickEvent {
  /**
   * The click (redirection) id, on which ingestion is idempotent: in full, or as this process's
   * sequence number (nextClickSequence; the id is clickIdOf(clickedAt, id)).
   */
  id: string | number;
  linkId: string;
  projectId: string;
  /** Ms since the epoch (spool files of earlier versions hold ISO 8601 strings). */
  clickedAt: number;
  referrer: string | null;
  userAgent: string | null;
  ip: string | null;
  isBot: boolean;
}

/** The click's id in full (what the spool keeps: another process cannot make it from the sequence). */
export function clickId(click: ClickEvent): string {
  return typeof click.id === 'string' ? click.id : clickIdOf(click.clickedAt, click.id);
}

/**
 * The columns every batch layout shares: link ids, and indexes (-1 for none) into the batch's
 * lists of projects, referrers and user agents, each listed once.
 */
interface SharedColumns {
  links: string[];
  projects: string[];
  project: number[];
  referrers: string[];
  referrer: number[];
  agents: string[];
  agent: number[];
  bots: (0 | 1)[];
}

/**
 * A click batch as the queue carries it: columns, every repeated string listed once. A click's
 * share of a job is about 20 bytes of JSON against 80 in the version-2 layout (its id as 36
 * characters, its time as 13 digits, its IP in full): the job's JSON, Redis and the worker's
 * parsing are most of a click's cost after the redirect itself.
 */
export interface PackedClicks extends SharedColumns {
  v: 3;
  /** Ids made by the packing process: its random bits… */
  node?: string;
  /** …and each click's sequence number, as the step from the one before (the first in full). */
  seq?: number[];
  /** Ids in full, when any click of the batch came from elsewhere (the spool). */
  ids?: string[];
  /** Clicked at: the first click's ms since the epoch, then each click's ms from it. */
  at0: number;
  at: number[];
  /** IPs listed once, and each click's index into them (-1 for none). */
  ips: string[];
  ip: number[];
}

/**
 * The version-2 layout: ids and times in full, IPs per click. The first released version wrote
 * its click jobs so (into Redis); an installation upgraded from it may still hold some.
 */
export interface PackedClicksV2 extends SharedColumns {
  v: 2;
  ids: string[];
  at: number[];
  ips: (string | null)[];
}

/** The job data: packed, in either layout. */
export type ClickBatch = PackedClicks | PackedClicksV2;

/** What ingestion writes: every id and time (ms since the epoch) in full, IPs listed once. */
export interface ClickColumns extends SharedColumns {
  ids: string[];
  at: number[];
  ips: string[];
  ip: number[];
}

function indexer(values: string[]): (value: string | null) => number {
  const positions = new Map<string, number>();
  // Neighbouring clicks often share a value (one visitor, one busy link): no map lookup for those.
  let last: string | null = null;
  let lastPosition = -1;
  return (value) => {
    if (value === null) return -1;
    if (value === last) return lastPosition;
    let position = positions.get(value);
    if (position === undefined) {
      position = values.push(value) - 1;
      positions.set(value, position);
    }
    last = value;
    lastPosition = position;
    return position;
  };
}

export function packClicks(clicks: ClickEvent[]): PackedClicks {
  const sequenced = clicks.every((click) => typeof click.id === 'number');
  const at0 = clicks[0]?.clickedAt ?? 0;
  const packed: PackedClicks = {
    v: 3,
    ...(sequenced ? { node: NODE, seq: [] } : { ids: [] }),
    at0,
    at: [],
    links: [],
    projects: [],
    project: [],
    referrers: [],
    referrer: [],
    agents: [],
    agent: [],
    ips: [],
    ip: [],
    bots: [],
  };
  const project = indexer(packed.projects);
  const referrer = indexer(packed.referrers);
  const agent = indexer(packed.agents);
  const ip = indexer(packed.ips);
  let previous = 0;
  for (const click of clicks) {
    if (packed.seq) {
      const seq = click.id as number;
      packed.seq.push(
        packed.seq.length === 0 ? seq : (seq - previous + SEQUENCE_SPAN) % SEQUENCE_SPAN,
      );
      previous = seq;
    } else {
      packed.ids!.push(clickId(click));
    }
    packed.at.push(click.clickedAt - at0);
    packed.links.push(click.linkId);
    packed.project.push(project(click.projectId));
    packed.referrer.push(referrer(click.referrer));
    packed.agent.push(agent(click.userAgent));
    packed.ip.push(ip(click.ip));
    packed.bots.push(click.isBot ? 1 : 0);
  }
  return packed;
}

/** A job's batch, whatever its layout, as ingestion writes it. */
export function clickColumns(batch: ClickBatch | ClickEvent[]): ClickColumns {
  if (Array.isArray(batch)) return clickColumns(packClicks(batch));
  if (batch.v === 2) {
    const { v: _version, ips: ipOfClick, ...rest } = batch;
    const ips: string[] = [];
    const ip = indexer(ips);
    return { ...rest, ips, ip: ipOfClick.map(ip) };
  }
  const { v: _version, node, seq, ids: given, at0, at: offsets, ...shared } = batch;
  const at = offsets.map((offset) => at0 + offset);
  let step = 0;
  const ids =
    given ??
    seq!.map((delta, i) => {
      step = i === 0 ? delta : (step + delta) % SEQUENCE_SPAN;
      return clickIdOf(at[i], step, node);
    });
  return { ...shared, ids, at };
}

/** A batch's clicks as objects, ids in full (what the journal hands back after a crash). */
export function unpackClicks(batch: ClickBatch): ClickEvent[] {
  const c = clickColumns(batch);
  const pick = (values: string[], index: number): string | null =>
    index === -1 ? null : values[index];
  return c.ids.map((id, i) => ({
    id,
    linkId: c.links[i],
    projectId: c.projects[c.project[i]],
    clickedAt: c.at[i],
    referrer: pick(c.referrers, c.referrer[i]),
    userAgent: pick(c.agents, c.agent[i]),
    ip: pick(c.ips, c.ip[i]),
    isBot: c.bots[i] === 1,
  }));
}

/** A click as a row of the journal: [id or sequence number, at, link, project, bot, referrer, agent, ip]. */
type ClickRow = [
  string | number,
  number,
  string,
  string,
  0 | 1,
  string | null,
  string | null,
  string | null,
];

/**
 * A few clicks as JSON: `[node, row, …]`, one row per click. For a handful of clicks this costs a
 * quarter of packClicks and JSON (no lists to share strings in): the journal writes the clicks of a
 * quiet event-loop turn so.
 */
export function clickRowsJson(clicks: ClickEvent[]): string {
  const rows: (string | ClickRow)[] = [NODE];
  for (const c of clicks) {
    rows.push([
      c.id,
      c.clickedAt,
      c.linkId,
      c.projectId,
      c.isBot ? 1 : 0,
      c.referrer,
      c.userAgent,
      c.ip,
    ]);
  }
  return JSON.stringify(rows);
}

/** The clicks of clickRowsJson's array, ids in full. */
export function fromClickRows(rows: unknown[]): ClickEvent[] {
  const [node, ...clicks] = rows as [string, ...ClickRow[]];
  return clicks.map(([id, clickedAt, linkId, projectId, bot, referrer, userAgent, ip]) => ({
    id: typeof id === 'number' ? clickIdOf(clickedAt, id, node) : id,
    linkId,
    projectId,
    clickedAt,
    referrer,
    userAgent,
    ip,
    isBot: bot === 1,
  }));
}

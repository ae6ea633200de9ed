import { randomBytes } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** This process's 48 random bits, the last group of every click id it makes. */
const NODE = randomBytes(6).toString('hex');
/** A 26-bit sequence, shared by every millisecond (so ids stay unique while the clock stands still). */
let sequence = randomBytes(4).readUInt32BE(0) & 0x3ffffff;
let prefixMs = -1;
let prefix = '';

/**
 * A new click id: a UUID version 7 (RFC 9562) with the millisecond time in its first 48 bits, a
 * 26-bit sequence in rand_a and the low bits of the variant group ("fixed-length dedicated
 * counter", method 1), and 48 random bits per process in the last group. Raw clicks go into
 * pk_clicks in time order (the B-tree grows at its end), ids never repeat within a process unless
 * 67 million clicks fall in one millisecond, and processes differ by their random bits. Built from
 * lookup tables: it runs on every redirect (randomUUID and hex formatting cost 3% of one).
 */
export function newClickId(now = Date.now()): string {
  if (now !== prefixMs) {
    prefixMs = now;
    const time = now.toString(16).padStart(12, '0');
    prefix = `${time.slice(0, 8)}-${time.slice(8, 12)}-7`;
  }
  const n = sequence;
  sequence = (n + 1) & 0x3ffffff;
  const high = n >>> 14; // 12 bits: rand_a
  const low = 0x8000 | (n & 0x3fff); // variant 10, then 14 bits
  return `${prefix}${HEX[high >>> 8][1]}${HEX[high & 0xff]}-${HEX[low >>> 8]}${HEX[low & 0xff]}-${NODE}`;
}

/** One visit of a link, as the redirect layer records it and the click job carries it. */
export interface ClickEvent {
  /** The click (redirection) id: a UUID made at redirect time; ingestion is idempotent on it. */
  id: string;
  linkId: string;
  projectId: string;
  /** Ms since the epoch (spool files of earlier versions hold ISO 8601 strings). */
  clickedAt: number;
  referrer: string | null;
  userAgent: string | null;
  ip: string | null;
  isBot: boolean;
}

/**
 * A click batch as the queue carries it: columns, with user agents, referrers and projects listed
 * once per batch (a batch of 1,000 clicks shrinks several times against one object per click, and
 * the job's JSON is the bulk of a click's cost on the API process).
 */
export interface PackedClicks {
  v: 2;
  ids: string[];
  links: string[];
  /** Clicked at, ms since the epoch. */
  at: number[];
  projects: string[];
  project: number[];
  referrers: string[];
  /** Index into referrers, -1 for none. */
  referrer: number[];
  agents: string[];
  agent: number[];
  ips: (string | null)[];
  bots: (0 | 1)[];
}

/** The job data: packed, or (jobs enqueued by an earlier version) one object per click. */
export type ClickBatch = PackedClicks | { clicks: ClickEvent[] };

function indexer(values: string[]): (value: string | null) => number {
  const positions = new Map<string, number>();
  return (value) => {
    if (value === null) return -1;
    let position = positions.get(value);
    if (position === undefined) {
      position = values.push(value) - 1;
      positions.set(value, position);
    }
    return position;
  };
}

export function packClicks(clicks: ClickEvent[]): PackedClicks {
  const packed: PackedClicks = {
    v: 2,
    ids: [],
    links: [],
    at: [],
    projects: [],
    project: [],
    referrers: [],
    referrer: [],
    agents: [],
    agent: [],
    ips: [],
    bots: [],
  };
  const project = indexer(packed.projects);
  const referrer = indexer(packed.referrers);
  const agent = indexer(packed.agents);
  for (const click of clicks) {
    packed.ids.push(click.id);
    packed.links.push(click.linkId);
    packed.at.push(click.clickedAt);
    packed.project.push(project(click.projectId));
    packed.referrer.push(referrer(click.referrer));
    packed.agent.push(agent(click.userAgent));
    packed.ips.push(click.ip);
    packed.bots.push(click.isBot ? 1 : 0);
  }
  return packed;
}

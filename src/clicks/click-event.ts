import { randomUUID } from 'node:crypto';

/**
 * A new click id: a UUID version 7 (RFC 9562), the millisecond time in its first 48 bits and
 * random bits after, so raw clicks go into pk_clicks in time order (the B-tree grows at its end
 * instead of touching random pages) and still never collide across processes.
 */
export function newClickId(now = Date.now()): string {
  const random = randomUUID();
  const time = now.toString(16).padStart(12, '0');
  // randomUUID: xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx (variant bits already set); version 4 → 7.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
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

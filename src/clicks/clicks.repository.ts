import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AnalyticsClient, chTime, tsvValue } from '../analytics/analytics-client';
import { UNSTAMPED } from '../analytics/link-stamps';
import { countStampStateWrite } from '../analytics/stamp-state';
import { IpMode, storedIp } from '../common/ip';
import type { VisitorStorage } from '../common/visitor-storage';
import { AppConfig } from '../config/app-config';
import { AgentInfo, BatchDescription, NO_AGENT, Place } from '../enrichment/click-enricher';
import { ByteSink } from './byte-sink';
import { ClickColumns } from './click-event';
import { CLICK_COLUMN_TYPES, ClickNativeBlock } from './click-native-block';

/**
 * A batch of clicks written into a block (ClickSink): what identifies its rows there. A block is its
 * batches' rows one after another (a Native block's columns, or TabSeparated lines).
 */
export interface EncodedBatch {
  /** How many clicks (rows). */
  rows: number;
  /** The deduplication token of its click ids (batchToken). */
  token: string;
  /** Every click carries its link's stamp (none is UNSTAMPED: a link the mirror lacked). */
  stamped: boolean;
}

/**
 * The deduplication token of a batch: a digest of its click ids, in any order. A job retried, run
 * twice at once or sent again from the spool with the same clicks carries the same token, and the
 * analytics store skips it (clicks and their views alike).
 */
export function batchToken(ids: readonly string[]): string {
  // The digest of every id followed by a comma, hashed in one piece.
  return `clicks:${ids.length}:${sha256(`${[...ids].sort().join(',')},`)}`;
}

/**
 * The deduplication token of a block: its batch's token when it holds one, else a digest of its
 * batches' tokens in any order. The same batches make the same block token however they were
 * ordered; each batch's token is made when the batch is encoded, so a block of a second's clicks
 * costs one digest of its batches' tokens, not a sort and a digest of its thousands of ids at once
 * (a stall of the event loop that every redirect in flight would wait for).
 */
export function blockToken(batches: readonly Pick<EncodedBatch, 'rows' | 'token'>[]): string {
  if (batches.length === 1) return batches[0].token;
  const rows = batches.reduce((sum, b) => sum + b.rows, 0);
  return `clicks:${rows}:${sha256(
    `${batches
      .map((b) => b.token)
      .sort()
      .join(',')},`,
  )}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The columns of `clicks` that a click's row holds, in its order: the click, its link's stamp, then
 * its dimensions (ENRICHMENT_COLUMNS).
 */
export const CLICK_COLUMNS = CLICK_COLUMN_TYPES.map(([name]) => name);

/**
 * Where a block's clicks are written as they arrive: a Native block for a store that takes them (the
 * embedded engine: no text to parse), TabSeparated lines for a server.
 */
export type ClickSink = ClickNativeBlock | ByteSink;

/** A place's columns (country, region, city) as TabSeparated fields. */
function placeFields(place: Place | null): string {
  return place
    ? `${tsvValue(place.country)}\t${tsvValue(place.region)}\t${tsvValue(place.city)}`
    : '\\N\t\\N\t\\N';
}

/** An agent's columns (device, browser, os) as TabSeparated fields. */
function agentFields(agent: AgentInfo): string {
  return `${tsvValue(agent.device)}\t${tsvValue(agent.browser)}\t${tsvValue(agent.os)}`;
}

/** Raw clicks in the analytics store (its `clicks` table, whose projections hold the rollups). */
@Injectable()
export class ClicksRepository {
  constructor(
    @Inject(AnalyticsClient) private readonly analytics: AnalyticsClient,
    private readonly config: AppConfig,
  ) {}

  /** An empty sink for a block (ClickSink). */
  newSink(): ClickSink {
    return this.analytics.takesNative ? new ClickNativeBlock() : new ByteSink();
  }

  /**
   * The batch's clicks at `indexes` as rows of `clicks` (CLICK_COLUMNS) into `sink`: the click,
   * with its address and user agent as its project keeps them (`storage`, by index into the
   * batch's projects: VisitorStorageService; without it, as CLICK_IP says and in full); the stamp
   * of its link (`stamps`, by link id: LinkStamps); its dimensions (`described`:
   * ClickEnricher.describe of the batch's lists, made from the whole address and user agent). The
   * batch's projects, referrers, user agents and addresses are each encoded and described once.
   */
  encode(
    batch: ClickColumns,
    indexes: readonly number[],
    stamps: ReadonlyMap<string, string>,
    described: BatchDescription,
    sink: ClickSink,
    storage?: readonly VisitorStorage[],
  ): EncodedBatch {
    const kept =
      storage ??
      batch.projects.map(() => ({ ip: this.config.clickIp, userAgent: 'full' as const }));
    const stamped =
      sink instanceof ClickNativeBlock
        ? sink.write(batch, indexes, stamps, described, kept)
        : this.encodeLines(batch, indexes, stamps, described, sink, kept);
    // The token now, a job at a time: the ids are not kept (they would live on the heap until the
    // block is stored).
    return { rows: indexes.length, token: batchToken(indexes.map((i) => batch.ids[i])), stamped };
  }

  /** The clicks as TabSeparated lines, one a click; whether every click carried its link's stamp. */
  private encodeLines(
    batch: ClickColumns,
    indexes: readonly number[],
    stamps: ReadonlyMap<string, string>,
    described: BatchDescription,
    sink: ByteSink,
    storage: readonly VisitorStorage[],
  ): boolean {
    const escaped = (values: string[]) => values.map(tsvValue);
    const projects = escaped(batch.projects);
    const referrers = escaped(batch.referrers);
    const agents = escaped(batch.agents);
    const ipsByMode = new Map<IpMode, string[]>();
    const projectIps = storage.map((kept) => {
      let ips = ipsByMode.get(kept.ip);
      if (!ips)
        ipsByMode.set(kept.ip, (ips = batch.ips.map((ip) => tsvValue(storedIp(ip, kept.ip)))));
      return ips;
    });
    const projectAgents = storage.map((kept) => (kept.userAgent === 'full' ? agents : null));
    const places = described.places.map(placeFields);
    const agentInfos = described.agents.map(agentFields);
    const hosts = described.referrers.map(tsvValue);
    const noPlace = placeFields(null);
    const noAgent = agentFields(NO_AGENT);
    const at = (i: number, values: string[], none = '\\N') => (i < 0 ? none : values[i]);
    let stamped = true;
    for (const i of indexes) {
      const stamp = stamps.get(batch.links[i]);
      if (stamp === UNSTAMPED) stamped = false;
      const referrer = batch.referrer[i];
      const agent = batch.agent[i];
      const ip = batch.ip[i];
      const project = batch.project[i];
      const keptAgents = projectAgents[project];
      // Line by line into the sink: the job's lines as one string, then encoded, took 5× as long.
      sink.write(
        `${projects[project]}\t${batch.links[i]}\t${chTime(batch.at[i])}\t${batch.ids[i]}\t` +
          `${at(referrer, referrers)}\t${keptAgents === null ? '\\N' : at(agent, keptAgents)}\t` +
          `${at(ip, projectIps[project])}\t${batch.bots[i]}\t` +
          `${stamp}\t${at(ip, places, noPlace)}\t${at(agent, agentInfos, noAgent)}\t${at(referrer, hosts)}\t1\n`,
      );
    }
    // Bytes now, a job at a time: a block of a second's clicks joined as one string and then
    // encoded would hold the event loop for tens of milliseconds at once.
    return stamped;
  }

  /**
   * Inserts batches, their rows in `sink`, as one block, skipped when the token of their click ids
   * was seen. A block with unstamped clicks changes its projects' stamp state (stamp-state.ts).
   */
  async insert(sink: ClickSink, batches: readonly EncodedBatch[]): Promise<void> {
    const rows = batches.reduce((sum, b) => sum + b.rows, 0);
    const options = { token: blockToken(batches) };
    const insert =
      sink instanceof ClickNativeBlock
        ? this.analytics.insertNative('clicks', sink.bytes(), rows, options)
        : this.analytics.insertTabSeparated('clicks', CLICK_COLUMNS, sink.bytes, rows, options);
    await (batches.every((b) => b.stamped) ? insert : countStampStateWrite(this.analytics, insert));
  }

  /**
   * The batch's clicks the store holds already, by id: a read of the batch's links over the batch's
   * time span in `clicks` (its sorting key: project, link, time), the table every other figure is
   * made from. Only batches that may overlap stored clicks ask (retries, and clicks from the spool,
   * the journal or another process).
   */
  async storedIds(batch: ClickColumns): Promise<Set<string>> {
    let from = Infinity;
    let to = -Infinity;
    for (const at of batch.at) {
      if (at < from) from = at;
      if (at > to) to = at;
    }
    const rows = await this.analytics.query<{ id: string }>(
      `SELECT toString(click_id) AS id FROM ${this.analytics.database}.clicks
       WHERE project_id IN {projects:Array(UUID)} AND link_id IN {links:Array(UInt64)}
         AND clicked_at >= {from:DateTime64(3, 'UTC')} AND clicked_at <= {to:DateTime64(3, 'UTC')}
         AND click_id IN {ids:Array(UUID)}`,
      {
        projects: batch.projects,
        links: [...new Set(batch.links)].map(Number),
        from: chTime(from),
        to: chTime(to),
        ids: batch.ids,
      },
    );
    return new Set(rows.map((r) => r.id));
  }
}

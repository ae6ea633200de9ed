import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AnalyticsClient, Params, chTime } from '../analytics/analytics-client';
import { LINK_STAMP_COLUMNS, STAMP_SOURCE_COLUMNS } from '../analytics/analytics-schema';
import { insertConversionEvents } from '../analytics/conversion-events';
import { LinkMirror } from '../analytics/link-mirror';
import { LinkStamps } from '../analytics/link-stamps';
import { countStampStateWrite } from '../analytics/stamp-state';
import { ClickEvent } from '../clicks/click-event';
import { ClicksService } from '../clicks/clicks.service';
import { ClickEnricher } from '../enrichment/click-enricher';
import { LinkEntity } from '../links/link.entity';
import { ChainStampsBackfill } from './chain-stamps-backfill';
import { ChainsBackfill } from './chains-backfill';
import { DimensionsBackfill } from './dimensions-backfill';

export type BackfillStep =
  'links' | 'chains' | 'clicks' | 'conversions' | 'stamps' | 'chain_stamps' | 'dimensions';

export interface BackfillProgress {
  step: BackfillStep;
  /** Rows of the step copied so far (this run and earlier ones). */
  done: number;
  /** Rows of the step in PostgreSQL. */
  total: number;
}

/** The steps that copy rows from PostgreSQL. */
type CopyStep = Exclude<BackfillStep, 'chains' | 'stamps' | 'chain_stamps' | 'dimensions'>;

const CHUNK: Record<CopyStep, number> = { links: 5_000, clicks: 10_000, conversions: 5_000 };

/** How often the stamps step looks at its mutations. */
const STAMP_POLL_MS = 500;

/**
 * Copies what an installation kept in PostgreSQL before statistics moved to the analytics store
 * (links, raw clicks, conversions) into it, in chunks, in key order. Idempotent and resumable: each
 * step's position is kept in the store (`backfill_progress`) after every chunk; a chunk copied again
 * after an interruption changes nothing (links are versioned rows, clicks go through ingestion's
 * per-click deduplication, conversions already stored are skipped by id). The links made before
 * share chains get theirs once the links are copied (`chains`: ChainsBackfill). Then the events
 * stored before stamps are stamped (`stamps`), those stored before chain stamps are added to the
 * chain figures and stamped with their chain (`chain_stamps`: ChainStampsBackfill), and those
 * stored before click dimensions are described (`dimensions`: DimensionsBackfill), each by
 * mutations of the store that leave nothing to do on a rerun.
 */
@Injectable()
export class BackfillService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AnalyticsClient) private readonly analytics: AnalyticsClient,
    private readonly mirror: LinkMirror,
    private readonly clicks: ClicksService,
    private readonly stamps: LinkStamps,
    private readonly enricher: ClickEnricher,
  ) {}

  async run(
    onProgress: (progress: BackfillProgress) => void,
  ): Promise<Record<BackfillStep, number>> {
    await this.command(
      `CREATE TABLE IF NOT EXISTS ${this.analytics.database}.backfill_progress (
         step String, cursor String, done UInt64, at DateTime64(3, 'UTC')
       ) ENGINE = ReplacingMergeTree(at) ORDER BY step`,
    );
    const links = await this.step('links', onProgress);
    const chains = await new ChainsBackfill(this.dataSource, this.mirror).run((done, total) =>
      onProgress({ step: 'chains', done, total }),
    );
    const clicks = (await this.hasRawClicks()) ? await this.step('clicks', onProgress) : 0;
    const conversions = await this.step('conversions', onProgress);
    const chainStamps = new ChainStampsBackfill(this.analytics, (sql, params) =>
      this.command(sql, params),
    );
    const chainProgress = (done: number, total: number) =>
      onProgress({ step: 'chain_stamps', done, total });
    // A chain stamps run an interruption left open is finished before `stamps` gives more events a
    // link stamp: the open run's partitions must keep the events its chunks read (ChainStampsBackfill).
    const resumed = await chainStamps.resume(chainProgress);
    return {
      links,
      chains,
      clicks,
      conversions,
      stamps: await this.stampEvents(onProgress),
      chain_stamps: resumed + (await chainStamps.run(chainProgress)),
      dimensions: await new DimensionsBackfill(
        this.analytics,
        this.dataSource,
        this.enricher,
        (sql, params) => this.command(sql, params),
      ).run((done, total) => onProgress({ step: 'dimensions', done, total })),
    };
  }

  /**
   * Stamps each event whose stamp is not its link's latest with that latest stamp, as ingestion
   * would: the events stored before stamps existed (link_version 0: every event of a version before
   * them), and the events stamped before their link was updated (a link of `link_updates` whose
   * events carry another version; once none does, the service settles the update and statistics
   * stop testing its events). One ClickHouse mutation per table, which rewrites the parts holding
   * such events in the background, a part at a time (a part is either rewritten or not, whatever
   * stops the process; the engine resumes a mutation after a restart). The stamps come from a
   * Join-engine table of every link's latest stamp, made for the step and dropped after it. Events
   * of a link the mirror lacks keep version 0. Returns the events stamped; run again, it finds none
   * left (or resumes).
   */
  private async stampEvents(onProgress: (progress: BackfillProgress) => void): Promise<number> {
    const db = this.analytics.database;
    // Not stamped, or a listed link's event stamped with another version than its latest (a link
    // the mirror lacks is never listed: its events keep theirs).
    const updates = `SELECT link_id, version FROM ${db}.link_updates FINAL`;
    const outdated = `link_version = 0 OR (link_id IN (SELECT link_id FROM (${updates})) AND (link_id, link_version) NOT IN (${updates}))`;
    const outdatedEvents = async (): Promise<number> => {
      const [row] = await this.analytics.query<{ n: string }>(
        `SELECT toString((SELECT count() FROM ${db}.clicks WHERE ${outdated}) + (SELECT count() FROM ${db}.conversions WHERE ${outdated})) AS n`,
      );
      return Number(row.n);
    };
    const total = await outdatedEvents();
    onProgress({ step: 'stamps', done: 0, total });
    if (total === 0) return 0;
    const join = `${db}.backfill_stamps`;
    // A run stopped earlier may have left its mutations waiting for this table: they are replaced.
    await this.command(
      `KILL MUTATION WHERE database = {db:String} AND command LIKE '%backfill_stamps%' SYNC`,
      { db },
    );
    await this.command(`DROP TABLE IF EXISTS ${join}`);
    await this.command(
      `CREATE TABLE ${join} ENGINE = Join(ANY, LEFT, link_id)
       AS SELECT link_id, ${STAMP_SOURCE_COLUMNS.join(', ')} FROM ${db}.links FINAL`,
    );
    const assignments = LINK_STAMP_COLUMNS.map(
      ([column], i) => `${column} = joinGet('${join}', '${STAMP_SOURCE_COLUMNS[i]}', link_id)`,
    ).join(', ');
    for (const table of ['clicks', 'conversions']) {
      await this.command(`ALTER TABLE ${db}.${table} UPDATE ${assignments} WHERE ${outdated}`);
    }
    let left: number;
    for (;;) {
      const [pending] = await this.analytics.query<{ running: string; failed: string }>(
        `SELECT toString(countIf(NOT is_done)) AS running, anyIf(latest_fail_reason, latest_fail_reason != '') AS failed
         FROM system.mutations WHERE database = {db:String} AND command LIKE '%backfill_stamps%'`,
        { db },
      );
      if (pending.failed) throw new Error(`stamping the events failed: ${pending.failed}`);
      left = await outdatedEvents();
      if (Number(pending.running) === 0) break;
      onProgress({ step: 'stamps', done: Math.max(0, total - left), total });
      await new Promise((resolve) => setTimeout(resolve, STAMP_POLL_MS));
    }
    await this.command(`DROP TABLE IF EXISTS ${join}`);
    onProgress({ step: 'stamps', done: total, total });
    return total - left;
  }

  /** Runs a statement of the store; each may change a project's stamp state (stamp-state.ts). */
  private async command(sql: string, params?: Params): Promise<void> {
    await countStampStateWrite(this.analytics, this.analytics.command(sql, params));
  }

  private async step(
    step: CopyStep,
    onProgress: (progress: BackfillProgress) => void,
  ): Promise<number> {
    const total = await this.count(step);
    let { cursor, done } = await this.position(step);
    onProgress({ step, done, total });
    for (;;) {
      const next = await this.copyChunk(step, cursor);
      if (next === null) break;
      cursor = next.cursor;
      done += next.rows;
      await this.analytics.insert('backfill_progress', [
        { step, cursor, done, at: chTime(Date.now()) },
      ]);
      onProgress({ step, done, total });
    }
    return done;
  }

  /** Copies the chunk after `cursor`; null when there is none. */
  private async copyChunk(
    step: CopyStep,
    cursor: string,
  ): Promise<{ cursor: string; rows: number } | null> {
    const limit = CHUNK[step];
    if (step === 'links') {
      const links = await this.dataSource
        .getRepository(LinkEntity)
        .createQueryBuilder('l')
        .where('l.id > :cursor', { cursor: cursor || '0' })
        .orderBy('l.id')
        .limit(limit)
        .getMany();
      if (links.length === 0) return null;
      await this.mirror.mirror(links);
      return { cursor: links[links.length - 1].id, rows: links.length };
    }
    if (step === 'clicks') {
      // Keyset order of pk_clicks (click_id, clicked_at): click ids are unique on their own.
      const rows = await this.dataSource.query<
        {
          click_id: string;
          clicked_at: Date;
          link_id: string;
          project_id: string;
          referrer: string | null;
          user_agent: string | null;
          ip: string | null;
          is_bot: boolean;
        }[]
      >(
        `SELECT click_id::text AS click_id, clicked_at, link_id::text AS link_id, project_id::text AS project_id, referrer, user_agent,
                host(ip) AS ip, is_bot
         FROM clicks WHERE click_id > $1::uuid ORDER BY click_id LIMIT $2`,
        [cursor || '00000000-0000-0000-0000-000000000000', limit],
      );
      if (rows.length === 0) return null;
      const events: ClickEvent[] = rows.map((r) => ({
        id: r.click_id,
        linkId: r.link_id,
        projectId: r.project_id,
        clickedAt: new Date(r.clicked_at).getTime(),
        referrer: r.referrer,
        userAgent: r.user_agent,
        ip: r.ip,
        isBot: r.is_bot,
      }));
      await this.clicks.ingest(events, { resent: true });
      return { cursor: rows[rows.length - 1].click_id, rows: rows.length };
    }
    const rows = await this.dataSource.query<
      {
        id: string;
        project_id: string;
        link_id: string;
        converted_at: Date;
        type: string;
        value: string;
        redirection_id: string;
      }[]
    >(
      `SELECT id::text AS id, project_id::text AS project_id, link_id::text AS link_id, converted_at, type, value::text AS value,
              redirection_id::text AS redirection_id
       FROM conversions WHERE id > $1::uuid ORDER BY id LIMIT $2`,
      [cursor || '00000000-0000-0000-0000-000000000000', limit],
    );
    if (rows.length === 0) return null;
    const stored = new Set(
      (
        await this.analytics.query<{ id: string }>(
          `SELECT toString(conversion_id) AS id FROM ${this.analytics.database}.conversions WHERE conversion_id IN {ids:Array(UUID)}`,
          { ids: rows.map((r) => r.id) },
        )
      ).map((r) => r.id),
    );
    const missing = rows.filter((r) => !stored.has(r.id));
    await insertConversionEvents(
      this.analytics,
      this.stamps,
      missing.map((r) => ({
        project_id: r.project_id,
        link_id: r.link_id,
        converted_at: new Date(r.converted_at),
        conversion_id: r.id,
        type: r.type,
        value: Number(r.value),
        // Described from its click by the dimensions step.
        click_id: r.redirection_id,
      })),
      `backfill:conversions:${missing[0]?.id}:${missing.length}`,
    );
    return { cursor: rows[rows.length - 1].id, rows: rows.length };
  }

  private async position(step: BackfillStep): Promise<{ cursor: string; done: number }> {
    const [row] = await this.analytics.query<{ cursor: string; done: string }>(
      `SELECT argMax(cursor, at) AS cursor, argMax(done, at) AS done FROM ${this.analytics.database}.backfill_progress WHERE step = {step:String}`,
      { step },
    );
    return { cursor: row?.cursor ?? '', done: Number(row?.done ?? 0) };
  }

  private async count(step: CopyStep): Promise<number> {
    const [row] = await this.dataSource.query<{ n: string }[]>(
      `SELECT count(*)::text AS n FROM ${step}`,
    );
    return Number(row.n);
  }

  /** Installations made after the move have no raw clicks table to copy. */
  private async hasRawClicks(): Promise<boolean> {
    const [row] = await this.dataSource.query<{ found: boolean }[]>(
      `SELECT to_regclass('clicks') IS NOT NULL AS found`,
    );
    return row.found;
  }
}

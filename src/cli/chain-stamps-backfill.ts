import { AnalyticsClient, Params } from '../analytics/analytics-client';
import { GOALS } from '../common/goals';

/** Events of a partition whose figures one insert adds, at most (its chunks: link_id % chunks). */
const CHUNK_EVENTS = 500_000;
/** How often the step looks at its mutations. */
const POLL_MS = 500;
/** What the step's tables are named after, and what finds its mutations and inserts. */
const PREFIX = 'backfill_chain_stamps';
/** The Join-engine table of links' shared times (shareTimes), and what finds its mutation. */
const SHARED_TIMES = 'backfill_chain_shared_times';
/** The project of the chunk markers: no project's id, so no statistic reads them. */
const MARKER_PROJECT = '00000000-0000-0000-0000-000000000000';
/**
 * The events the step converts: stamped with their link (the link is in the mirror: its chain is
 * in `link_chains`, or it is a root) and not with its chain. Events of a link the mirror lacks
 * (link_version 0) keep chain_stamped 0, and their projects the joined form, as the service
 * stores them; `stamps` stamps them once their link is mirrored, and a later run converts them.
 */
const UNCONVERTED = 'chain_stamped = 0 AND link_version != 0';
/** Squashing thresholds no insert reaches: an insert's rows form one block, so one part. */
const ONE_BLOCK = '1000000000000000';

/** A table of events and how `chain_hourly`'s views sum its rows (analytics-schema.ts, chainFiguresSchema). */
interface EventTable {
  name: 'clicks' | 'conversions';
  time: string;
  /** The row's columns the figures read. */
  reads: string[];
  /** The figures, named as `chain_hourly`'s columns, computed as the view computes them. */
  figures: [column: string, expression: string][];
}

const EVENT_TABLES: readonly EventTable[] = [
  {
    name: 'clicks',
    time: 'clicked_at',
    reads: ['is_bot'],
    figures: [
      ['clicks', 'toInt64(countIf(is_bot = 0))'],
      ['bots', 'toInt64(countIf(is_bot = 1))'],
    ],
  },
  {
    name: 'conversions',
    time: 'converted_at',
    reads: ['type', 'value'],
    figures: [
      ['clicks', 'toInt64(0)'],
      ['bots', 'toInt64(0)'],
      ['pageviews', "toInt64(countIf(type = 'pageview'))"],
      ...GOALS.flatMap((n): [string, string][] => [
        [`g${n}c`, `toInt64(countIf(type = 'goal_${n}'))`],
        [`g${n}v`, `toInt64(sumIf(value, type = 'goal_${n}'))`],
      ]),
    ],
  },
];

/** What the step needs of its caller; `chunkEvents` and `pollMs` for tests. */
export interface ChainStampsOptions {
  chunkEvents?: number;
  pollMs?: number;
}

/**
 * The `chain_stamps` step of analytics:backfill: converts a store written before chain stamps, so
 * that with_chain reads the chain figures the store keeps (docs/architecture.md, "Share chains").
 * Its events with a link stamp and no chain stamp (UNCONVERTED) are added to `chain_hourly` under
 * the chain of their link, as the views add every new event, then stamped with that chain
 * (chain_stamped 1, ancestors; a link without a chain row is a root: no ancestors, nothing added).
 * Statistics keep the joined form for a project until none of its events is left unconverted
 * (chainStateQuery), so they answer the same throughout.
 *
 * A run takes a snapshot of the chains of the links of those events: a Join-engine table
 * (`backfill_chain_stamps_<run>`) made under a temporary name then renamed, so that it exists
 * complete or not at all; it is the run's record, dropped when the run ends (after its markers,
 * below). Each partition of `clicks`, then of `conversions`, is converted from it, one after the
 * other: its events' figures are added by chunk, then one mutation stamps them, and the step waits
 * for it. Then the chains written before they held their link's shared time take it (shareTimes).
 *
 * **Exactly once.** Each chunk's figures are one INSERT … SELECT into `chain_hourly` that also
 * holds the chunk's marker: a row of MARKER_PROJECT keyed by (run, table, partition) and the chunk,
 * holding the chunk count. Its rows form one block (ONE_BLOCK, one insert thread), so one part,
 * committed by one rename: the figures and their marker are in the store together or not at all,
 * and a chunk with a marker is never added again. Between the insert and the partition's
 * mutation, the partition's unconverted events are exactly those the chunks read: nothing else
 * makes an event UNCONVERTED (the service stamps an event with its link's stamp and chain from one
 * read, or with neither; `stamps` could, which is why BackfillService finishes an open run,
 * `resume`, before `stamps`), and only the partition's own mutation, submitted once every chunk
 * has its marker, converts them; events inserted meanwhile come stamped and are not touched
 * (UNCONVERTED is false for them, and a mutation leaves the parts written after it alone). So the
 * chunks are the same on a rerun (their count is the markers' when any exists), and the mutation
 * stamps exactly the events whose figures were added, from the same snapshot. Interrupted anywhere,
 * a rerun resumes the open run: chunks with a marker are skipped, the others added, the mutation
 * submitted again (the engine also resumes one it had begun; a second finds nothing left). An
 * insert a lost connection left running is killed before the markers are read, and its token
 * (insert_deduplication_token, `chain_hourly` keeps the last 10,000) makes a repeated one a no-op.
 *
 * **Moves.** A chain that changes after the snapshot is listed in `chain_moves` before the new
 * chain is written (LinkMirror.moveChains), so statistics count its link's events, stamped and
 * added from the snapshot, under its latest chain (the query-time corrections), as they count the
 * events the service stamped before a move. Nothing may fold those corrections back into
 * `chain_hourly` while a run is open.
 */
export class ChainStampsBackfill {
  private readonly chunkEvents: number;
  private readonly pollMs: number;

  constructor(
    private readonly analytics: AnalyticsClient,
    /** Runs a statement of the store (BackfillService.command). */
    private readonly command: (sql: string, params?: Params) => Promise<void>,
    options: ChainStampsOptions = {},
  ) {
    this.chunkEvents = options.chunkEvents ?? CHUNK_EVENTS;
    this.pollMs = options.pollMs ?? POLL_MS;
  }

  private get db(): string {
    return this.analytics.database;
  }

  /**
   * Finishes a run an interruption left open (its snapshot is still there), if any, reporting it;
   * returns the events it converted.
   */
  async resume(onProgress: (done: number, total: number) => void): Promise<number> {
    await this.killInserts();
    const runs = await this.openRuns();
    if (runs.length > 1) throw new Error(`more than one open chain stamps run: ${runs.join(', ')}`);
    if (runs.length === 0) return 0;
    return this.convert(runs[0], onProgress);
  }

  /**
   * The step: finishes an open run, then converts the events left in a run of its own, and gives
   * the chains written before chains held their link's shared time theirs (shareTimes); returns
   * the events it converted (`onProgress` as it goes).
   */
  async run(onProgress: (done: number, total: number) => void): Promise<number> {
    const resumed = await this.resume(onProgress);
    const total = await this.left();
    let converted = 0;
    if (total === 0) onProgress(0, 0);
    else converted = await this.convert(await this.open(), onProgress);
    await this.shareTimes();
    return resumed + converted;
  }

  /**
   * The chains written before `link_chains` held their link's shared time (null) take it from
   * `links FINAL` (a Join-engine table made for it and dropped after), in one mutation that waits
   * for its end; statistics read the joined form for a project while it has such a chain
   * (chainStateQuery). A chain whose link the mirror lacks keeps null. A rerun finds only those.
   */
  private async shareTimes(): Promise<void> {
    const db = this.db;
    const [row] = await this.analytics.query<{ n: string }>(
      `SELECT toString(count()) AS n FROM ${db}.link_chains WHERE shared_at IS NULL`,
    );
    if (row.n === '0') return;
    const join = `${db}.${SHARED_TIMES}`;
    // A run stopped earlier may have left its mutation waiting for this table: it is replaced.
    await this.command(
      `KILL MUTATION WHERE database = {db:String} AND command LIKE '%${SHARED_TIMES}%' SYNC`,
      { db },
    );
    await this.command(`DROP TABLE IF EXISTS ${join}`);
    await this.command(
      `CREATE TABLE ${join} ENGINE = Join(ANY, LEFT, link_id)
       AS SELECT link_id, shared_at FROM ${db}.links FINAL
       WHERE link_id IN (SELECT link_id FROM ${db}.link_chains WHERE shared_at IS NULL)`,
    );
    await this.command(
      `ALTER TABLE ${db}.link_chains UPDATE shared_at = joinGet('${join}', 'shared_at', link_id)
       WHERE shared_at IS NULL AND joinHas('${join}', link_id) SETTINGS mutations_sync = 2`,
    );
    await this.command(`DROP TABLE IF EXISTS ${join}`);
  }

  private table(run: string): string {
    return `${this.db}.${PREFIX}_${run}`;
  }

  /** The runs whose snapshot exists (one at most). */
  private async openRuns(): Promise<string[]> {
    const rows = await this.analytics.query<{ name: string }>(
      `SELECT name FROM system.tables
       WHERE database = {db:String} AND match(name, {pattern:String}) ORDER BY name`,
      { db: this.db, pattern: `^${PREFIX}_[0-9]+$` },
    );
    return rows.map((row) => row.name.slice(PREFIX.length + 1));
  }

  /**
   * Opens a run: its snapshot of the chains of the links of the unconverted events (link_id →
   * ancestors, below a root only), made under a temporary name and renamed to the run's.
   */
  private async open(): Promise<string> {
    const db = this.db;
    if (await this.hasMarkers())
      throw new Error(
        `${db}.chain_hourly holds chunk markers of a chain stamps run whose snapshot (${PREFIX}_<run>) is gone: its figures cannot be completed`,
      );
    // Mutations a run left behind would read the next snapshot: none may outlive its run.
    await this.command(
      `KILL MUTATION WHERE database = {db:String} AND command LIKE '%${PREFIX}_%' SYNC`,
      { db },
    );
    const building = `${db}.${PREFIX}_next`;
    await this.command(`DROP TABLE IF EXISTS ${building}`);
    const links = EVENT_TABLES.map(
      (t) => `SELECT link_id FROM ${db}.${t.name} WHERE ${UNCONVERTED}`,
    );
    await this.command(
      `CREATE TABLE ${building} ENGINE = Join(ANY, LEFT, link_id)
       AS SELECT link_id, ancestors FROM ${db}.link_chains FINAL
       WHERE depth > 0 AND link_id IN (${links.join(' UNION DISTINCT ')})`,
    );
    const run = String(Date.now());
    await this.command(`RENAME TABLE ${building} TO ${this.table(run)}`);
    return run;
  }

  /** Converts every partition's unconverted events from the run's snapshot, then ends the run. */
  private async convert(
    run: string,
    onProgress: (done: number, total: number) => void,
  ): Promise<number> {
    const total = await this.left();
    onProgress(0, total);
    const progress = async (): Promise<number> => {
      const left = await this.left();
      onProgress(Math.max(0, total - left), total);
      return left;
    };
    for (const table of EVENT_TABLES) {
      const partitions = await this.analytics.query<{ id: string }>(
        `SELECT _partition_id AS id FROM ${this.db}.${table.name} WHERE ${UNCONVERTED} GROUP BY id ORDER BY id`,
      );
      for (const { id } of partitions) {
        if (!/^[0-9A-Za-z_-]+$/.test(id)) throw new Error(`a partition id not expected: ${id}`);
        await this.addFigures(run, table, id);
        await this.command(
          `ALTER TABLE ${this.db}.${table.name}
           UPDATE chain_stamped = 1, ancestors = joinGet('${this.table(run)}', 'ancestors', link_id)
           IN PARTITION ID '${id}' WHERE ${UNCONVERTED}`,
        );
        await this.waitForMutations(run, progress);
      }
    }
    const left = await progress();
    await this.close(run);
    return Math.max(0, total - left);
  }

  /**
   * Adds the figures of the partition's unconverted events to `chain_hourly`, chunk by chunk, each
   * with its marker; skips the chunks whose marker is there. The chunk count is the markers' when
   * there are any (the partition's events may be partly stamped already), else from the events.
   */
  private async addFigures(run: string, table: EventTable, partition: string): Promise<void> {
    const mark = `${run}:${table.name}:${partition}`;
    const markers = await this.analytics.query<{ chunk: number; chunks: string; n: string }>(
      `SELECT toUInt32(hour) AS chunk, toString(sum(clicks)) AS chunks, toString(sum(bots)) AS n
       FROM ${this.db}.chain_hourly
       WHERE project_id = {nil:UUID} AND ancestor_id = cityHash64({mark:String}) AND generation = 0
       GROUP BY chunk`,
      { nil: MARKER_PROJECT, mark },
    );
    let chunks: number;
    if (markers.length > 0) {
      chunks = Number(markers[0].chunks);
      if (markers.some((m) => m.n !== '1' || Number(m.chunks) !== chunks))
        throw new Error(`the chain figures of ${mark} were added more than once`);
    } else {
      const [row] = await this.analytics.query<{ n: string }>(
        `SELECT toString(count()) AS n FROM ${this.db}.${table.name}
         WHERE _partition_id = {partition:String} AND ${UNCONVERTED}`,
        { partition },
      );
      chunks = Math.max(1, Math.ceil(Number(row.n) / this.chunkEvents));
    }
    const added = new Set(markers.map((m) => Number(m.chunk)));
    for (let chunk = 0; chunk < chunks; chunk++) {
      if (!added.has(chunk)) await this.addChunk(run, table, partition, chunk, chunks);
    }
  }

  /**
   * One chunk's figures (its links: link_id % chunks = chunk) and its marker, in one block: a row
   * per (project, ancestor, hour, generation) as the view makes them, from the snapshot's chains.
   */
  private async addChunk(
    run: string,
    table: EventTable,
    partition: string,
    chunk: number,
    chunks: number,
  ): Promise<void> {
    const db = this.db;
    const columns = table.figures.map(([column]) => column);
    const marker = columns.map((column) =>
      column === 'clicks' ? `toInt64(${chunks})` : column === 'bots' ? 'toInt64(1)' : 'toInt64(0)',
    );
    const mark = `${run}:${table.name}:${partition}`;
    await this.command(
      `INSERT INTO ${db}.chain_hourly (project_id, ancestor_id, hour, generation, ${columns.join(', ')})
       SETTINGS insert_deduplication_token = '${PREFIX}:${mark}:${chunk}/${chunks}', max_insert_threads = 1,
                min_insert_block_size_rows = ${ONE_BLOCK}, min_insert_block_size_bytes = ${ONE_BLOCK}
       SELECT project_id, ancestor_id, toStartOfHour(${table.time}) AS hour, generation,
              ${table.figures.map(([column, expression]) => `${expression} AS ${column}`).join(', ')}
       FROM (SELECT project_id, ${table.time}, ${table.reads.join(', ')},
                    joinGet('${this.table(run)}', 'ancestors', link_id) AS chain
             FROM ${db}.${table.name}
             WHERE _partition_id = {partition:String} AND ${UNCONVERTED}
               AND link_id % {chunks:UInt64} = {chunk:UInt64})
       ARRAY JOIN chain AS ancestor_id, arrayEnumerate(chain) AS generation
       GROUP BY project_id, ancestor_id, hour, generation
       UNION ALL
       SELECT {nil:UUID}, cityHash64({mark:String}), toDateTime({chunk:UInt32}, 'UTC'), 0, ${marker.join(', ')}`,
      { partition, chunk, chunks, nil: MARKER_PROJECT, mark },
    );
  }

  /** Polls the run's mutations until none runs; throws the reason of a failed one. */
  private async waitForMutations(run: string, progress: () => Promise<number>): Promise<void> {
    for (;;) {
      const [pending] = await this.analytics.query<{ running: string; failed: string }>(
        `SELECT toString(countIf(NOT is_done)) AS running, anyIf(latest_fail_reason, latest_fail_reason != '') AS failed
         FROM system.mutations WHERE database = {db:String} AND command LIKE {like:String}`,
        { db: this.db, like: `%${PREFIX}_${run}%` },
      );
      if (pending.failed) throw new Error(`stamping the events' chains failed: ${pending.failed}`);
      await progress();
      if (Number(pending.running) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }

  /** Ends a run: its markers deleted, then its snapshot dropped (the run's record, last). */
  private async close(run: string): Promise<void> {
    if (await this.hasMarkers())
      await this.command(`DELETE FROM ${this.db}.chain_hourly WHERE project_id = {nil:UUID}`, {
        nil: MARKER_PROJECT,
      });
    await this.command(`DROP TABLE IF EXISTS ${this.table(run)}`);
  }

  private async hasMarkers(): Promise<boolean> {
    const rows = await this.analytics.query<{ one: number }>(
      `SELECT 1 AS one FROM ${this.db}.chain_hourly WHERE project_id = {nil:UUID} LIMIT 1`,
      { nil: MARKER_PROJECT },
    );
    return rows.length > 0;
  }

  /**
   * Kills a chunk's insert still running (its client gone: a lost connection, a stopped run), so
   * that the markers read next are the store's.
   */
  private async killInserts(): Promise<void> {
    await this.command(
      `KILL QUERY WHERE startsWith(query, 'INSERT') AND position(query, {prefix:String}) > 0 SYNC`,
      { prefix: `${PREFIX}:` },
    );
  }

  /** The clicks and conversions left to convert. */
  private async left(): Promise<number> {
    const [row] = await this.analytics.query<{ n: string }>(
      `SELECT toString(${EVENT_TABLES.map((t) => `(SELECT count() FROM ${this.db}.${t.name} WHERE ${UNCONVERTED})`).join(' + ')}) AS n`,
    );
    return Number(row.n);
  }
}

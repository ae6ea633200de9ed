import { randomUUID } from 'node:crypto';
import { createReadStream, mkdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
// Types only: the engine is loaded by embeddedStreamer, and only when embedded.
import type { Session } from 'chdb';
import type { StatementSettings } from './read-statement';
import { withSettingsClause } from './read-statement';

/**
 * The engine's output formats a statement's answer may be streamed in: a header line and a row a
 * line, a JSON object a line, or one Parquet file. The bytes are the engine's own, never rewritten.
 */
export type OutputFormat = 'CSVWithNames' | 'JSONEachRow' | 'Parquet';

/** A statement to stream: its text (no FORMAT clause), bound values and settings. */
export interface StreamStatement {
  sql: string;
  params: Record<string, unknown>;
  format: OutputFormat;
  settings: StatementSettings;
  queryId: string;
  /** Aborted when the answer is no longer wanted: the statement stops. */
  signal?: AbortSignal;
}

/**
 * Starts a statement and resolves, once the engine has answered (an error it refuses the statement
 * with rejects instead), with its answer's bytes: a stream that reads on from the engine only as
 * fast as it is read itself, so that memory stays bounded whatever the answer's size.
 */
export type StatementStreamer = (statement: StreamStatement) => Promise<Readable>;

/**
 * Parquet buffers a row group before it writes it: groups of at most 65,536 rows and 16 MiB keep
 * that bounded (the engine's defaults are 1,000,000 rows and 512 MiB).
 */
const PARQUET_SETTINGS: StatementSettings = {
  output_format_parquet_row_group_size: 65_536,
  output_format_parquet_row_group_size_bytes: 16 * 1024 * 1024,
};

function formatSettings(statement: StreamStatement): StatementSettings {
  return statement.format === 'Parquet'
    ? { ...PARQUET_SETTINGS, ...statement.settings }
    : statement.settings;
}

/**
 * A ClickHouse server: the HTTP response itself, as the server writes it (exec, the statement
 * with its FORMAT clause): the server runs the statement as the response is read, and a response
 * not read holds it (TCP's flow control). Aborting drops the request; the caller kills the
 * statement by its id.
 */
export function serverStreamer(client: ClickHouseClient): StatementStreamer {
  return async (statement) => {
    const { stream } = await client.exec({
      query: `${statement.sql}\nFORMAT ${statement.format}`,
      query_params: statement.params,
      clickhouse_settings: formatSettings(statement),
      query_id: statement.queryId,
      abort_signal: statement.signal,
    });
    return stream;
  };
}

/** chDB's root module, of which the streamer needs the Session class. */
interface ChdbModule {
  Session: typeof Session;
}

/**
 * The embedded engine (chDB): each statement on a session of its own on the store's folder (chDB
 * serves several on one folder, each running its statements apart from the others'), closed with
 * its stream.
 *
 * - Rows are read a chunk at a time (Session.queryStreamBind), each fetched only when the one
 *   before was taken: a chunk of a few thousand rows in memory at once. The engine writes each
 *   chunk as a whole answer in the format, with its own header: a header line format
 *   (CSVWithNames) is read as its header alone (the statement with LIMIT 0) and then its rows in
 *   the format without names (CSV).
 * - A Parquet file cannot be cut in chunks (each would be a file of its own): the engine writes the
 *   whole answer to a temporary file in `<dir>/export-files` (INSERT INTO FUNCTION file), which
 *   is then read from disk and removed once read or abandoned; the folder is emptied when the
 *   store opens (a file left by a process that died). The write runs to its end: chDB cannot
 *   interrupt it.
 */
export function embeddedStreamer(dir: string): StatementStreamer {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Session: ChdbSession } = require('chdb') as ChdbModule;
  const exportDir = path.join(dir, 'export-files');
  rmSync(exportDir, { recursive: true, force: true });
  mkdirSync(exportDir, { recursive: true });
  return async (statement) => {
    const session = new ChdbSession(dir);
    try {
      const query = withSettingsClause(statement.sql, formatSettings(statement));
      if (statement.format === 'Parquet') {
        const file = await parquetFile(session, query, statement, exportDir);
        session.close();
        return fileStream(file);
      }
      return await chunkStream(session, query, statement);
    } catch (error) {
      session.close();
      throw error;
    }
  };
}

/** Bytes of chunks handed on between two collections of the young generation (sweepChunks). */
const SWEEP_BYTES = 16 * 1024 * 1024;

/**
 * Each chunk is a buffer of its own, garbage once written out; V8 frees buffers at its collections,
 * which an export, allocating little else, seldom triggers: a young-generation collection every
 * SWEEP_BYTES keeps the written chunks from piling up (`gc`, on the global object when Node runs
 * with `--expose-gc`, as `npm start` and the image do; without it, V8's own collections free them).
 */
function sweepChunks(): void {
  const gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc === 'function')
    void (gc as (options: { type: 'minor'; execution: 'async' }) => Promise<void>)({
      type: 'minor',
      execution: 'async',
    });
}

/** The rows, a chunk at a time, after the header line of a format that has one. */
async function chunkStream(
  session: Session,
  query: string,
  statement: StreamStatement,
): Promise<Readable> {
  const { params, signal } = statement;
  const named = statement.format.endsWith('WithNames');
  const header = named
    ? Buffer.from(
        (
          await session.queryBindAsync(
            withSettingsClause(`SELECT * FROM (${statement.sql}) LIMIT 0`, statement.settings),
            params,
            { format: statement.format, signal },
          )
        ).bytes(),
      )
    : null;
  const rows = session.queryStreamBind(query, params, {
    format: named ? statement.format.replace(/WithNames$/, '') : statement.format,
    signal,
  });
  const chunks = rows[Symbol.asyncIterator]();
  // The first chunk is awaited here: an error the statement fails with at once rejects the call.
  let first: IteratorResult<{ raw(): Uint8Array }>;
  try {
    first = await chunks.next();
  } catch (error) {
    rows.cancel();
    throw error;
  }
  async function* bytes(): AsyncGenerator<Buffer> {
    try {
      if (header) yield header;
      let unswept = 0;
      for (let next = first; !next.done; next = await chunks.next()) {
        const raw = next.value.raw();
        if (raw.byteLength > 0) yield Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
        unswept += raw.byteLength;
        if (unswept >= SWEEP_BYTES) {
          unswept = 0;
          sweepChunks();
        }
      }
    } finally {
      rows.cancel();
      session.close();
    }
  }
  return Readable.from(bytes(), { objectMode: false });
}

/** The answer written to a Parquet file by the engine; the file's path. */
async function parquetFile(
  session: Session,
  query: string,
  statement: StreamStatement,
  exportDir: string,
): Promise<string> {
  const file = path.join(exportDir, `${randomUUID()}.parquet`);
  // The path is ours (a folder of the configuration and a UUID), written in as a literal.
  const literal = `'${file.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  try {
    await session.queryBindAsync(
      `INSERT INTO FUNCTION file(${literal}, 'Parquet') ${query}`,
      statement.params,
      { signal: statement.signal },
    );
    return file;
  } catch (error) {
    await rm(file, { force: true });
    throw error;
  }
}

/** A file's bytes, the file removed once they are read or the reader went away. */
function fileStream(file: string): Readable {
  const stream = createReadStream(file);
  stream.once('close', () => void rm(file, { force: true }));
  return stream;
}

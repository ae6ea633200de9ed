import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { AnalyticsClient, OutputFormat } from '../analytics/analytics-client';
import { Statement } from '../analytics/statement';
import { ExportFormat } from './export-params';
import { importedTableSql } from './export-query';

/** The engine's output format of each export format (docs/api.md, "Export"). */
export const OUTPUT_FORMATS: Record<ExportFormat, OutputFormat> = {
  csv: 'CSVWithNames',
  ndjson: 'JSONEachRow',
  parquet: 'Parquet',
};

/**
 * Runs the exports' statements (export-query.ts) on the analytics store: streams an answer in the
 * engine's own format, and keeps an export's table of imported clicks while it runs. The tables
 * written here hold no stamp state (stamp-state.ts): they are not counted as its writes.
 */
@Injectable()
export class ExportRepository {
  constructor(@Inject(AnalyticsClient) private readonly analytics: AnalyticsClient) {}

  get db(): string {
    return this.analytics.database;
  }

  /** The statement's answer as a stream of bytes in `format` (AnalyticsClient.stream). */
  stream(statement: Statement, format: ExportFormat, signal: AbortSignal): Promise<Readable> {
    return this.analytics.stream(statement.sql, statement.params, OUTPUT_FORMATS[format], {
      signal,
    });
  }

  /** A new, empty table for one export's imported clicks; its name. */
  async createImportedTable(): Promise<string> {
    const table = `export_imported_${randomBytes(8).toString('hex')}`;
    await this.analytics.command(importedTableSql(this.db, table));
    return table;
  }

  /** Rows (link id, imported clicks) of the project into an export's table, as one block. */
  async insertImported(
    table: string,
    projectId: string,
    rows: { id: string; imported_clicks: string }[],
  ): Promise<void> {
    await this.analytics.insert(
      table,
      rows.map((row) => ({
        project_id: projectId,
        link_id: row.id,
        imported_clicks: row.imported_clicks,
      })),
    );
  }

  /** Drops an export's table once its answer was read (or abandoned). */
  async dropImportedTable(table: string): Promise<void> {
    await this.analytics.command(`DROP TABLE IF EXISTS ${this.db}.${table}`);
  }
}

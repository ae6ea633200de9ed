import { Readable } from 'node:stream';
import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { LinkLookupsService } from '../links/link-lookups.service';
import { visitorStorage } from '../projects/project-visitor-storage';
import { ProjectEntity } from '../projects/project.entity';
import { toolKeys } from '../stats/tool-keys';
import { ExportFormat, ExportQuery } from './export-params';
import { exportStatement } from './export-query';
import { ExportRepository } from './export.repository';

/** An export's answer: its bytes, read on as they are sent, and what the response says of them. */
export interface ExportFileStream {
  stream: Readable;
  contentType: string;
  filename: string;
}

/** The Content-Type of each format (Parquet's registered media type, 2024). */
export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson',
  parquet: 'application/vnd.apache.parquet',
};

/** Imported links read from PostgreSQL a page at a time into an export's table. */
const IMPORTED_PAGE = 10_000;

/**
 * GET /export/{clicks|conversions|links}.{csv|ndjson|parquet} (docs/api.md, "Export"): the
 * statement for the request, streamed from the analytics store in the engine's own format, with
 * addresses and user agents as the project keeps them now (ip_storage, unset: CLICK_IP;
 * ua_storage).
 */
@Injectable()
export class ExportService {
  private readonly logger = new Logger('Export');

  constructor(
    private readonly repository: ExportRepository,
    private readonly lookups: LinkLookupsService,
    private readonly config: AppConfig,
  ) {}

  async export(
    project: ProjectEntity,
    query: ExportQuery,
    signal: AbortSignal,
  ): Promise<ExportFileStream> {
    const importedTable = query.kind === 'links' ? await this.importedTable(project.id) : null;
    const drop = () => {
      if (importedTable)
        this.repository.dropImportedTable(importedTable).catch((error: unknown) => {
          this.logger.warn(`could not drop ${importedTable}: ${String(error)}`);
        });
    };
    try {
      const statement = exportStatement(query, {
        db: this.repository.db,
        projectId: project.id,
        toolKeys: await toolKeys(this.lookups, [project.id], query),
        visitor: visitorStorage(project, this.config.clickIp),
        importedTable,
      });
      const stream = await this.repository.stream(statement, query.format, signal);
      stream.once('close', drop);
      return {
        stream,
        contentType: CONTENT_TYPES[query.format],
        filename: exportFilename(query),
      };
    } catch (error) {
      drop();
      throw error;
    }
  }

  /**
   * The project's imported clicks (PostgreSQL) copied into a table of the store for this export, a
   * page at a time, or null when the project has none (the export says null for every link).
   */
  private async importedTable(projectId: string): Promise<string | null> {
    let page = await this.lookups.importedClicks(projectId, '0', IMPORTED_PAGE);
    if (page.length === 0) return null;
    const table = await this.repository.createImportedTable();
    try {
      while (page.length > 0) {
        await this.repository.insertImported(table, projectId, page);
        if (page.length < IMPORTED_PAGE) break;
        page = await this.lookups.importedClicks(
          projectId,
          page[page.length - 1].id,
          IMPORTED_PAGE,
        );
      }
      return table;
    } catch (error) {
      await this.repository.dropImportedTable(table).catch(() => undefined);
      throw error;
    }
  }
}

/**
 * `svc-clicks-20261101-20261123.csv`: the kind, the period's bounds (UTC days; `all` without a
 * start, `now` without an end) when one is given, the format.
 */
export function exportFilename(
  query: Pick<ExportQuery, 'kind' | 'format' | 'start' | 'end'>,
): string {
  const day = (date: Date) => date.toISOString().slice(0, 10).replace(/-/g, '');
  const period =
    query.start || query.end
      ? `-${query.start ? day(query.start) : 'all'}-${query.end ? day(query.end) : 'now'}`
      : '';
  return `svc-${query.kind}${period}.${query.format}`;
}

import { Errors } from '../common/app-error';
import { RawParams, bool } from '../common/params';
import { FilterField, isDimensionField } from '../stats/stats-fields';
import { readPeriod } from '../stats/stats-params';
import { filterNames, readStatsFilters } from '../stats/stats-query';

/** What an export holds (docs/api.md, "Export"): a project's clicks, conversions or links. */
export const EXPORT_KINDS = ['clicks', 'conversions', 'links'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** How an export is written: CSV with a header line, a JSON object a line, or a Parquet file. */
export const EXPORT_FORMATS = ['csv', 'ndjson', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The file an export path names: `clicks.csv` is the clicks, as CSV. */
export interface ExportFile {
  kind: ExportKind;
  format: ExportFormat;
}

/** An export request, checked: the period, the filters (every name from a whitelist), bots. */
export interface ExportQuery extends ExportFile {
  start: Date | null;
  end: Date | null;
  filters: Partial<Record<FilterField, string>>;
  /** Bots' clicks too (with_bots=true, as statistics); conversions have none. */
  withBots: boolean;
}

/** The filters an export takes: the statistics' (link attributes and click dimensions). */
export const EXPORT_FILTERS: readonly string[] = filterNames('totals');

/**
 * The kind and format of `/export/{file}`: an unknown kind is no export (404), an unknown format a
 * 400 naming `format`.
 */
export function readExportFile(file: string): ExportFile {
  const dot = file.lastIndexOf('.');
  const kind = dot < 0 ? file : file.slice(0, dot);
  if (!(EXPORT_KINDS as readonly string[]).includes(kind)) {
    throw Errors.notFound(
      `No export ${JSON.stringify(kind.slice(0, 64))}: the exports are clicks, conversions and links`,
    );
  }
  const format = dot < 0 ? '' : file.slice(dot + 1);
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw Errors.invalid(
      'format',
      `${JSON.stringify(format.slice(0, 64))} is not supported; use csv, ndjson or parquet`,
    );
  }
  return { kind: kind as ExportKind, format: format as ExportFormat };
}

/**
 * The rest of an export request, read as statistics read theirs (docs/api.md, "Statistics"):
 * start_date rounded down and end_date up to the hour, each optional; the link filters and click
 * dimensions of range and totals, each checked alike (400 naming the parameter); with_bots. Links
 * have no click dimensions: a dimension filter on the links export is a 400 naming it.
 */
export function readExportQuery(params: RawParams, file: ExportFile): ExportQuery {
  const { start, end } = readPeriod(params, { required: false, earliest: null });
  const filters = readStatsFilters(params, EXPORT_FILTERS);
  if (file.kind === 'links') {
    const dimension = Object.keys(filters).find(isDimensionField);
    if (dimension !== undefined)
      throw Errors.invalid(dimension, 'filters clicks and conversions, not links');
  }
  const withBots = bool(params, 'with_bots', false);
  if (withBots && file.kind !== 'clicks')
    throw Errors.invalid('with_bots', `only clicks have bots, not ${file.kind}`);
  return { ...file, start, end, filters, withBots };
}

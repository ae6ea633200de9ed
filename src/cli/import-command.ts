import { createReadStream, statSync } from 'node:fs';
import type { INestApplicationContext } from '@nestjs/common';
import { Errors } from '../common/app-error';
import { IMPORT_FORMATS, ImportFormat } from '../links/import/import-formats';
import { LinkImportService } from '../links/import/link-import.service';
import { ProjectLookupsService } from '../projects/project-lookups.service';

/** How far the import is: bytes of the file read, of its size. */
export interface ImportProgress {
  step: string;
  done: number;
  total: number;
}

/**
 * `import <format> <file> --project <api_key> [--domain <host>]` (docs/operations.md, "Importing
 * links"): the file is read as a stream, decoded as UTF-8 (invalid bytes stop the import before
 * the rest), and handed to LinkImportService chunk by chunk. Answers the report as records: the
 * totals, then each rejected line.
 */
export async function runImport(
  context: INestApplicationContext,
  options: Record<string, string>,
  progress: (progress: ImportProgress) => void,
): Promise<Record<string, string>[]> {
  const format = options.format as ImportFormat;
  if (!(IMPORT_FORMATS as readonly string[]).includes(format)) {
    throw Errors.invalid('format', `must be one of ${IMPORT_FORMATS.join(', ')}`);
  }
  const project = await context.get(ProjectLookupsService).findActiveByApiKey(options.project);
  if (!project) throw Errors.notFound('Project not found: no live project has this api_key');
  let size: number;
  try {
    size = statSync(options.file).size;
  } catch (error) {
    throw Errors.invalid('file', (error as Error).message);
  }
  let read = 0;
  const show = () => progress({ step: 'import', done: read, total: size });
  const report = await context.get(LinkImportService).run(project, chunks(options.file), {
    format,
    domain: options.domain,
    onProgress: show,
  });
  read = size;
  show();
  return [
    {
      format,
      file: options.file,
      read: String(report.read),
      made: String(report.made),
      skipped: String(report.skipped),
      rejected: String(report.rejected),
      imported_clicks: String(report.imported_clicks),
    },
    ...report.rejections.map((r) => ({ line: String(r.line), reason: r.reason })),
  ];

  /** The file's text, chunk by chunk; invalid UTF-8 fails the import where it is met. */
  async function* chunks(path: string): AsyncGenerator<string> {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    for await (const part of createReadStream(path) as AsyncIterable<Buffer>) {
      let text: string;
      try {
        text = decoder.decode(part, { stream: true });
      } catch {
        throw Errors.invalid(
          'file',
          `is not valid UTF-8 (within bytes ${read}–${read + part.length})`,
        );
      }
      read += part.length;
      yield text;
    }
    yield decoder.decode();
  }
}

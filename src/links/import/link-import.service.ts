import { Injectable } from '@nestjs/common';
import { AppError, Errors } from '../../common/app-error';
import { normaliseLinkHost } from '../../common/validators';
import { ProjectLookupsService } from '../../projects/project-lookups.service';
import { ProjectEntity } from '../../projects/project.entity';
import { LinkInput, readLinkInput } from '../link-input';
import { isValidCustomPath, svcId } from '../link-path';
import { canonicalUrl } from '../link-redirect';
import { LinkEntity } from '../link.entity';
import { LinksRepository } from '../links.repository';
import { LinksService } from '../links.service';
import { CsvReader } from './csv-reader';
import {
  CsvLayout,
  ImportFormat,
  ImportLine,
  ImportedLink,
  RejectedLine,
  csvLayout,
  csvLink,
  kuttLinks,
} from './import-formats';

/** Links made per transaction (LinksService.create): one batch's lookup, insert and events. */
const BATCH = 100;
/** What one CSV record, or one line of a Kutt file, may hold (docs/api.md, "Importing links"). */
export const IMPORT_LIMITS = { maxRecordChars: 16_384, maxFields: 64, maxJsonLineChars: 1_048_576 };
const NOTES_MAX = 256;

/** What an import has done so far. */
export interface ImportCounts {
  /** Links the file described (its header line is none), rejected ones included. */
  read: number;
  made: number;
  skipped: number;
  rejected: number;
}

/** The report an import ends with (docs/api.md, "Importing links"). */
export interface ImportReport extends ImportCounts {
  format: ImportFormat;
  /** The imported clicks of the links made. */
  imported_clicks: number;
  /** The rejected lines, in order, up to the listing's cap (all are counted in `rejected`). */
  rejections: RejectedLine[];
}

export interface ImportOptions {
  format: ImportFormat;
  /** The links' domain instead of the one the file names (or of the project's default domain). */
  domain?: string;
  /** The most rejections the report lists (default: all). */
  maxListed?: number;
  onProgress?: (counts: ImportCounts) => void;
}

/** A line that passed the file's and the project's checks: its link's input and svc_id. */
interface Candidate {
  link: ImportedLink;
  input: LinkInput;
  svcId: string;
}

/**
 * Imports links from another shortener's export into a project (docs/api.md, "Importing links"),
 * through LinksService.create as every API-made link (mirror, chains, events): each link keeps its
 * short path on its domain. A second run of the same file changes nothing: a path the project
 * already has for the same URL is skipped; one a link to another URL (or another project) holds is
 * rejected, never overwritten. A bad line is rejected alone, with its line and the reason.
 */
@Injectable()
export class LinkImportService {
  constructor(
    private readonly links: LinksService,
    private readonly repository: LinksRepository,
    private readonly projects: ProjectLookupsService,
  ) {}

  async run(
    project: ProjectEntity,
    chunks: AsyncIterable<string>,
    options: ImportOptions,
  ): Promise<ImportReport> {
    const report: ImportReport = {
      format: options.format,
      read: 0,
      made: 0,
      skipped: 0,
      rejected: 0,
      imported_clicks: 0,
      rejections: [],
    };
    const hosts = await this.projects.getLinkHosts(project.id);
    const domain = options.domain === undefined ? undefined : normaliseLinkHost(options.domain);
    if (domain !== undefined && !hosts.has(domain)) {
      throw Errors.invalid('domain', `${domain} is not a domain the project may make links on`);
    }
    const reject = (line: number, reason: string) => {
      report.rejected++;
      if (report.rejections.length < (options.maxListed ?? Infinity)) {
        report.rejections.push({ line, reason });
      }
    };
    let batch: Candidate[] = [];
    const flush = async () => {
      await this.importBatch(project, batch, report, reject);
      batch = [];
      options.onProgress?.({ ...report });
    };
    for await (const lines of readLines(options.format, chunks)) {
      for (const line of lines) {
        report.read++;
        if ('reason' in line) {
          reject(line.line, line.reason);
          continue;
        }
        const checked = this.check(project, hosts, line, domain, options.format);
        if ('reason' in checked) reject(checked.line, checked.reason);
        else batch.push(checked);
        if (batch.length >= BATCH) await flush();
      }
    }
    await flush();
    report.rejections.sort((a, b) => a.line - b.line);
    return report;
  }

  /** The project's checks that need no database: the link's parameters, domain and path. */
  private check(
    project: ProjectEntity,
    hosts: Set<string>,
    link: ImportedLink,
    domainOption: string | undefined,
    format: ImportFormat,
  ): Candidate | RejectedLine {
    const where = link.item === undefined ? '' : `data[${link.item}]: `;
    const domain =
      domainOption ?? (link.domain ? normaliseLinkHost(link.domain) : project.defaultDomain);
    if (!hosts.has(domain)) {
      return {
        line: link.line,
        reason: `${where}domain ${domain} is not one the project may make links on (connect it to the project, or choose the links' domain)`,
      };
    }
    if (!isValidCustomPath(link.path)) {
      return {
        line: link.line,
        reason: `${where}path ${link.path.slice(0, 200)}: must be URL-safe segments (A-Z a-z 0-9 _ . ~ -) separated by /, at most 200 characters`,
      };
    }
    try {
      const input = readLinkInput({
        tool: `import-${format}`,
        url: link.url,
        path: link.path,
        notes: link.title === undefined ? undefined : notes(link.title),
        tag: link.tags[0],
        tag_2: link.tags.length > 0 ? link.tags : undefined,
      });
      input.domain = domain;
      input.createdAt = link.createdAt;
      input.importedClicks = link.clicks;
      return { link, input, svcId: svcId(domain, link.path) };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { line: link.line, reason: `${where}${error.message}` };
    }
  }

  /** Skips what the project has, rejects what another link holds, and makes the rest. */
  private async importBatch(
    project: ProjectEntity,
    batch: Candidate[],
    report: ImportReport,
    reject: (line: number, reason: string) => void,
  ): Promise<void> {
    if (batch.length === 0) return;
    const existing = new Map(
      (await this.repository.findBySvcIds([...new Set(batch.map((c) => c.svcId))])).map((l) => [
        l.svcId,
        l,
      ]),
    );
    const fresh: Candidate[] = [];
    const inBatch = new Map<string, Candidate>();
    for (const candidate of batch) {
      const verdict = verdictOn(project, candidate, existing.get(candidate.svcId));
      const earlier = inBatch.get(candidate.svcId);
      if (verdict === 'skip' || (earlier && sameUrl(earlier.input.url!, candidate.input.url!))) {
        report.skipped++;
      } else if (verdict !== 'make' || earlier) {
        reject(
          candidate.link.line,
          `${where(candidate)}${earlier ? `path ${candidate.link.path} on ${candidate.input.domain} is given on line ${earlier.link.line} for another URL` : (verdict as { reason: string }).reason}`,
        );
      } else {
        inBatch.set(candidate.svcId, candidate);
        fresh.push(candidate);
      }
    }
    if (fresh.length === 0) return;
    try {
      this.count(report, await this.create(project, fresh));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // One link refused (a path taken since the look-up, a rule only the service checks): each
      // on its own, so that only that one is rejected.
      for (const candidate of fresh) await this.createOne(project, candidate, report, reject);
    }
  }

  private async createOne(
    project: ProjectEntity,
    candidate: Candidate,
    report: ImportReport,
    reject: (line: number, reason: string) => void,
  ): Promise<void> {
    try {
      this.count(report, await this.create(project, [candidate]));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const [now] = await this.repository.findBySvcIds([candidate.svcId]);
      const verdict = now ? verdictOn(project, candidate, now) : 'make';
      if (verdict === 'skip') report.skipped++;
      else
        reject(
          candidate.link.line,
          `${where(candidate)}${verdict === 'make' ? error.message : verdict.reason}`,
        );
    }
  }

  private create(project: ProjectEntity, candidates: Candidate[]) {
    return this.links.create(
      project,
      candidates.map((c) => c.input),
      // An imported link's URL that is a link of the project does not make it a child: the file
      // says nothing of chains.
      { requireChannel: false, implicitParents: false },
    );
  }

  private count(report: ImportReport, records: { imported_clicks?: number }[]): void {
    report.made += records.length;
    for (const record of records) report.imported_clicks += record.imported_clicks ?? 0;
  }
}

type Verdict = 'make' | 'skip' | { reason: string };

/**
 * What a link already at the candidate's svc_id means: none, make it; the project's, to the same
 * page (the same URL but for its fragment and tracking parameters, as a redirection pattern
 * stores it), skip it; otherwise why it is rejected.
 */
function verdictOn(
  project: ProjectEntity,
  candidate: Candidate,
  link: LinkEntity | undefined,
): Verdict {
  if (!link) return 'make';
  const taken = `path ${candidate.link.path} is taken on ${candidate.input.domain}`;
  if (link.projectId !== project.id) return { reason: `${taken} by a link of another project` };
  if (!sameUrl(link.originalUrl, candidate.input.url!)) {
    return { reason: `${taken} by a link to another URL` };
  }
  return 'skip';
}

function sameUrl(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return canonicalUrl(a) === canonicalUrl(b);
  } catch {
    return false;
  }
}

function where(candidate: Candidate): string {
  return candidate.link.item === undefined ? '' : `data[${candidate.link.item}]: `;
}

/** A title as the link's notes: at most 256 UTF-16 units, never half a character. */
function notes(title: string): string {
  if (title.length <= NOTES_MAX) return title;
  const cut = title.slice(0, NOTES_MAX);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** The file's links, chunk by chunk: CSV records after the header, or Kutt's JSON lines. */
async function* readLines(
  format: ImportFormat,
  chunks: AsyncIterable<string>,
): AsyncGenerator<ImportLine[]> {
  if (format === 'kutt') {
    const lines = new JsonLines(IMPORT_LIMITS.maxJsonLineChars);
    for await (const chunk of chunks) yield lines.push(chunk).flatMap(kuttLine);
    yield lines.end().flatMap(kuttLine);
    return;
  }
  const reader = new CsvReader(IMPORT_LIMITS);
  let layout: CsvLayout | null = null;
  const rows = function* (batch: ReturnType<CsvReader['push']>): Generator<ImportLine> {
    for (const row of batch) {
      if ('error' in row) {
        yield { line: row.line, reason: row.error };
        continue;
      }
      if (layout === null) {
        layout = csvLayout(format, row.fields);
        if (!layout.firstIsData) continue;
      }
      yield csvLink(format, layout, row.line, row.fields);
    }
  };
  for await (const chunk of chunks) yield [...rows(reader.push(chunk))];
  yield [...rows(reader.end())];
}

function kuttLine(line: { line: number; text: string } | RejectedLine): ImportLine[] {
  return 'reason' in line ? [line] : kuttLinks(line.line, line.text);
}

/** Lines of text fed chunk by chunk; a line longer than the cap is rejected, not kept. */
class JsonLines {
  private buffer = '';
  private line = 1;
  private skipping = false;

  constructor(private readonly max: number) {}

  push(chunk: string): ({ line: number; text: string } | RejectedLine)[] {
    this.buffer += chunk;
    const out: ({ line: number; text: string } | RejectedLine)[] = [];
    let from = 0;
    for (let lf = this.buffer.indexOf('\n'); lf !== -1; lf = this.buffer.indexOf('\n', from)) {
      if (!this.skipping) this.take(this.buffer.slice(from, lf), out);
      this.skipping = false;
      this.line++;
      from = lf + 1;
    }
    this.buffer = this.buffer.slice(from);
    if (!this.skipping && this.buffer.length > this.max) {
      out.push({ line: this.line, reason: `longer than ${this.max} characters` });
      this.skipping = true;
    }
    if (this.skipping) this.buffer = '';
    return out;
  }

  end(): ({ line: number; text: string } | RejectedLine)[] {
    const out: ({ line: number; text: string } | RejectedLine)[] = [];
    if (!this.skipping) this.take(this.buffer, out);
    this.buffer = '';
    return out;
  }

  private take(text: string, out: ({ line: number; text: string } | RejectedLine)[]): void {
    const trimmed = text.replace(/^\uFEFF/, '').trim();
    if (trimmed === '') return;
    if (trimmed.length > this.max)
      out.push({ line: this.line, reason: `longer than ${this.max} characters` });
    else out.push({ line: this.line, text: trimmed });
  }
}

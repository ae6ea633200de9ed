import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError, ErrorCode, Errors } from '../common/app-error';
import { CONVERSION_TYPES } from '../common/goals';
import { RawParams } from '../common/params';
import { storedVisitor } from '../common/visitor-storage';
import { AppConfig } from '../config/app-config';
import { LinkLookupsService } from '../links/link-lookups.service';
import type { KeyKind } from '../projects/project-lookups.service';
import { ProjectEntity } from '../projects/project.entity';
import { visitorStorage } from '../projects/project-visitor-storage';
import { conversionEvent } from '../events/conversion-event';
import { EventPublisher } from '../events/event-publisher';
import {
  ConversionInput,
  RequestContext,
  readConversion,
  readVisitDetails,
} from './conversion-input';
import { ConversionRow, ConversionsRepository, ConvertingClick } from './conversions.repository';

/** Kept importable from here for the response DTO (conversions/dto). */
export { CONVERSION_TYPES };

/** The conversion record conversions/new answers (docs/api.md, "Conversions and the tracking script"). */
export interface ConversionRecord {
  id: string;
  svc_url: string;
  type: string;
  value: number;
  converted_at: number;
  account_id: string;
  account_conversionid: string | null;
  account_userid: string | null;
  clicker_id: string | null;
  href: string | null;
  ip_address: string | null;
  language: string | null;
  redirection_id: string;
  referrer: string | null;
  session_id: string | null;
  user_agent: string | null;
}

@Injectable()
export class ConversionsService {
  constructor(
    private readonly config: AppConfig,
    private readonly repository: ConversionsRepository,
    private readonly links: LinkLookupsService,
    private readonly dataSource: DataSource,
    private readonly publisher: EventPublisher,
  ) {}

  /**
   * conversions/new (docs/api.md): records a pageview or goal against the link that brought the
   * visitor, attributed to the click that led to it. A repeated account_conversion_id, in its
   * scope (idempotencyScope), returns the first conversion: to the api_key as stored, to the
   * publishable key as this request gives it, with the first one's ids. The publishable key
   * never reads a stored record back.
   */
  async record(
    project: ProjectEntity,
    key: KeyKind,
    params: RawParams,
    request: RequestContext,
  ): Promise<ConversionRecord> {
    if (!project.conversionsEnabled) {
      throw new AppError(
        403,
        ErrorCode.notPermitted,
        'Conversions are not enabled for this project',
      );
    }
    const input = readConversion(params, request);
    const { accountConversionId, convertedAt } = input;
    const link = await this.links.findProjectLink(project, input.svcId);
    if (!link) throw Errors.notFound(`No link ${input.svcUrl} in this project`);
    const scope = idempotencyScope(key, input.sessionId);
    // The visitor's address and user agent only as the project keeps them in its conversion
    // records (docs/api.md, "Addresses"): a project that never set ip_storage keeps the address given.
    const visit = {
      ...readVisitDetails(params),
      ...storedVisitor(input, visitorStorage(project, 'full')),
    };
    const repeat = (first: ConversionRow): ConversionRecord =>
      key === 'secret'
        ? this.toRecord(project, first)
        : this.toRecord(project, {
            ...newRow(project, link, input, visit, first.redirection_id, scope),
            id: first.id,
          });

    if (accountConversionId !== undefined && scope !== null) {
      const first = await this.repository.findByAccountId(project.id, scope, accountConversionId);
      if (first) return repeat(first);
    }
    // The redirection (click) that led here: the session's, else the visitor's latest click, else
    // a new id standing for a visit not seen yet (a click still on its way from the redirect
    // layer, or older than 30 days): docs/api.md gives every conversion one, and the session's
    // later conversions share it.
    // The visitor's clicks were stored as the project keeps clicks: compared in that form.
    const clicker = storedVisitor(input, visitorStorage(project, this.config.clickIp));
    const click = await this.convertingClick(project.id, link.id, input, clicker, convertedAt);
    const row = newRow(project, link, input, visit, click?.id ?? randomUUID(), scope);
    const events = await this.publisher.open(project.id, 'conversion.created');
    const record = await this.dataSource.transaction(async (manager) => {
      const inserted = await this.repository.insert(row, manager);
      if (!inserted) {
        const found = await this.repository.findByAccountId(
          project.id,
          scope!,
          accountConversionId!,
          manager,
        );
        return repeat(found!);
      }
      // Into the analytics store before the row commits: when the store does not answer, the
      // request fails (503) and leaves nothing behind, so a retry records the conversion once.
      await this.repository.addEvent(inserted, click);
      const record = this.toRecord(project, inserted);
      await events.add(manager, [
        conversionEvent(project.id, link.id, record, new Date(inserted.converted_at)),
      ]);
      return record;
    });
    events.handOver();
    return record;
  }

  /**
   * The redirection (click) that led here: the session's, else the visitor's latest click, else
   * none (the caller gives a new id standing for a visit not seen yet: a click still on its way
   * from the redirect layer, or older than 30 days): docs/api.md gives every conversion one, and
   * the session's later conversions share it. With its dimensions when the store holds it: a
   * conversion is grouped by its click's place, device and referrer. The visitor's latest click is
   * the one stored with `clicker`'s address and user agent.
   */
  private async convertingClick(
    projectId: string,
    linkId: string,
    input: ConversionInput,
    clicker: { ip: string | null; userAgent: string | null },
    convertedAt: Date,
  ): Promise<ConvertingClick | null> {
    const session = input.sessionId
      ? await this.repository.sessionRedirection(projectId, input.sessionId)
      : null;
    if (session) {
      const click = await this.repository.clickOf(
        projectId,
        session.linkId,
        session.redirectionId,
        convertedAt,
      );
      return click ?? { id: session.redirectionId, dimensions: null };
    }
    return this.repository.latestClick(projectId, linkId, convertedAt, clicker);
  }

  private toRecord(project: ProjectEntity, row: ConversionRow): ConversionRecord {
    return {
      id: row.id,
      svc_url: row.svc_id,
      type: row.type,
      value: Number(row.value),
      converted_at: Math.floor(new Date(row.converted_at).getTime() / 1000),
      account_id: project.subscriptionId,
      account_conversionid: row.account_conversion_id,
      account_userid: row.account_user_id,
      clicker_id: row.clicker_id,
      href: row.href,
      ip_address: row.ip,
      language: row.language,
      redirection_id: row.redirection_id,
      referrer: row.referrer,
      session_id: row.session_id,
      user_agent: row.user_agent,
    };
  }
}

/**
 * Where a conversion's account_conversion_id is unique (docs/api.md, "Conversions and the tracking
 * script"): the api_key's conversions share one scope; the publishable key's are deduplicated per
 * visitor session only, and not at all without one, so that a page's key, which anyone can read,
 * cannot claim an order number before the genuine conversion is recorded.
 */
function idempotencyScope(key: KeyKind, sessionId: string | undefined): string | null {
  if (key === 'secret') return '';
  return sessionId === undefined ? null : `session:${sessionId}`;
}

/**
 * The row a new conversion is stored as, from this request alone: the visitor's address and user
 * agent as the project keeps them (`visit`).
 */
function newRow(
  project: ProjectEntity,
  link: { id: string; svcId: string },
  input: ConversionInput,
  visit: {
    clickerId: string | null;
    href: string | null;
    ip: string | null;
    userAgent: string | null;
  },
  redirectionId: string,
  scope: string | null,
): ConversionRow {
  return {
    id: randomUUID(),
    project_id: project.id,
    link_id: link.id,
    svc_id: link.svcId,
    type: input.type,
    value: input.value,
    converted_at: input.convertedAt,
    account_conversion_id: input.accountConversionId ?? null,
    account_user_id: input.accountUserId ?? null,
    clicker_id: visit.clickerId,
    href: visit.href,
    ip: visit.ip,
    language: input.language ?? null,
    redirection_id: redirectionId,
    referrer: input.referrer ?? null,
    session_id: input.sessionId ?? null,
    user_agent: visit.userAgent,
    idempotency_scope: scope,
  };
}

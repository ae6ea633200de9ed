import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError, ErrorCode, Errors } from '../common/app-error';
import { CONVERSION_TYPES } from '../common/goals';
import { forwardedFor, storedIp } from '../common/ip';
import { AppConfig } from '../config/app-config';
import { bool } from '../links/link-input';
import { svcIdOfUrl } from '../links/link-path';
import { LinksService } from '../links/links.service';
import { ProjectEntity } from '../projects/project.entity';
import { ConversionRow, ConversionsRepository } from './conversions.repository';

type RawParams = Record<string, unknown>;

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

/** The request's own client data, for read_headers. */
export interface RequestContext {
  headers: IncomingHttpHeaders;
  remoteAddress: string | null;
}

/** A parameter under its docs/api.md name or the original service's spelling; one value, bounded. */
function param(params: RawParams, names: string[], max: number): string | undefined {
  for (const name of names) {
    const value = params[name];
    if (isAbsent(value)) continue;
    if (typeof value !== 'string')
      throw Errors.invalid(name, 'must be given once, as a single value');
    if (value.length > max) throw Errors.invalid(name, `must be at most ${max} characters`);
    return value;
  }
  return undefined;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value.slice(0, 2048) : undefined;
}

@Injectable()
export class ConversionsService {
  constructor(
    private readonly config: AppConfig,
    private readonly repository: ConversionsRepository,
    private readonly links: LinksService,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * conversions/new (docs/api.md): records a pageview or goal against the link that brought the
   * visitor, attributed to the click that led to it. A repeated account_conversion_id returns the
   * first conversion.
   */
  async record(
    project: ProjectEntity,
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
    const svcUrl = param(params, ['svc_url'], 2048);
    if (svcUrl === undefined) throw Errors.missing('svc_url');
    const type = param(params, ['conversion_type'], 20);
    if (type === undefined) throw Errors.missing('conversion_type');
    if (!(CONVERSION_TYPES as readonly string[]).includes(type)) {
      throw Errors.invalid('conversion_type', `must be one of ${CONVERSION_TYPES.join(', ')}`);
    }
    const value = conversionValue(params, type);
    const accountConversionId = param(
      params,
      ['account_conversion_id', 'account_conversionid'],
      50,
    );
    const accountUserId = param(params, ['account_user', 'account_userid'], 50);
    const createdAt = param(params, ['created_at', 'converted_at'], 20);
    if (createdAt !== undefined && !/^\d{1,11}$/.test(createdAt)) {
      throw Errors.invalid('created_at', 'must be a UNIX timestamp (seconds)');
    }
    const convertedAt = createdAt === undefined ? new Date() : new Date(Number(createdAt) * 1000);
    const readHeaders = bool(params, 'read_headers', false);
    let ip = param(params, ['ip', 'ip_address'], 64);
    if (ip !== undefined && isIP(ip) === 0) throw Errors.invalid('ip', 'must be an IP address');
    let userAgent = param(params, ['user_agent'], 2048);
    let language = param(params, ['language'], 255);
    let referrer = param(params, ['referrer'], 2048);
    if (readHeaders) {
      ip ??= forwardedFor(request.headers['x-forwarded-for']) ?? request.remoteAddress ?? undefined;
      userAgent ??= header(request.headers, 'user-agent');
      language ??= header(request.headers, 'accept-language');
      referrer ??= header(request.headers, 'referer');
    }
    const sessionId = param(params, ['session_id'], 255);
    const link = await this.links.findProjectLink(project, svcIdOf(svcUrl));
    if (!link) throw Errors.notFound(`No link ${svcUrl} in this project`);

    if (accountConversionId !== undefined) {
      const first = await this.repository.findByAccountId(project.id, accountConversionId);
      if (first) return this.toRecord(project, first);
    }
    // The redirection (click) that led here: the session's, else the visitor's latest click, else
    // a new id standing for a visit not seen yet (a click still on its way from the redirect
    // layer, or older than 30 days): docs/api.md gives every conversion one, and the session's
    // later conversions share it.
    const redirectionId =
      (sessionId ? await this.repository.sessionRedirection(project.id, sessionId) : null) ??
      (await this.repository.latestClick(project.id, link.id, convertedAt, {
        ip: storedIp(ip, this.config.clickIp),
        userAgent: userAgent ?? null,
      })) ??
      randomUUID();
    const row = await this.dataSource.transaction(async (manager) => {
      const inserted = await this.repository.insert(
        {
          id: randomUUID(),
          project_id: project.id,
          link_id: link.id,
          svc_id: link.svcId,
          type,
          value,
          converted_at: convertedAt,
          account_conversion_id: accountConversionId ?? null,
          account_user_id: accountUserId ?? null,
          clicker_id: param(params, ['clicker_id'], 255) ?? null,
          href: param(params, ['href'], 2048) ?? null,
          ip: ip ?? null,
          language: language ?? null,
          redirection_id: redirectionId,
          referrer: referrer ?? null,
          session_id: sessionId ?? null,
          user_agent: userAgent ?? null,
        },
        manager,
      );
      if (!inserted)
        return this.repository.findByAccountId(project.id, accountConversionId!, manager);
      // Into the analytics store before the row commits: when the store does not answer, the
      // request fails (503) and leaves nothing behind, so a retry records the conversion once.
      await this.repository.addEvent(inserted);
      return inserted;
    });
    return this.toRecord(project, row!);
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
 * conversion_value: required, an integer for a goal. A pageview has no value: whatever is given
 * (a tracking snippet may send a placeholder such as `n/a`) is recorded as 0 (docs/api.md).
 */
function conversionValue(params: RawParams, type: string): number {
  if (type === 'pageview') {
    if (isAbsent(params.conversion_value)) throw Errors.missing('conversion_value');
    return 0;
  }
  const raw = param(params, ['conversion_value'], 20);
  if (raw === undefined) throw Errors.missing('conversion_value');
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw Errors.invalid('conversion_value', 'must be an integer (cents suggested for money)');
  }
  return Number(raw);
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** svc_url is the link's svc_id; a full short link is accepted too. */
function svcIdOf(value: string): string {
  if (!/^https?:\/\//i.test(value)) return value;
  return svcIdOfUrl(value)?.svcId ?? value;
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { RuleRedirects } from '../links/link.entity';
import {
  HostDomains,
  LinkTarget,
  ProjectTarget,
  RedirectControls,
  locationOf,
} from './redirect-target';

interface LinkRow {
  id: string;
  project_id: string;
  svc_id: string;
  redirect_url: string;
  expires_at: Date | string | null;
  max_clicks: number | null;
  expired_url: string | null;
  disabled: boolean;
  rule_redirects: RuleRedirects | string | null;
  password_hash: string | null;
}

/** A link's controls as the redirect applies them, or null for a link without any. */
function redirectControls(row: LinkRow): RedirectControls | null {
  const controls: RedirectControls = {};
  if (row.disabled) controls.disabled = true;
  if (row.expires_at !== null) controls.expiresAt = new Date(row.expires_at).getTime();
  if (row.max_clicks !== null) controls.maxClicks = Number(row.max_clicks);
  if (row.expired_url !== null) controls.expiredUrl = locationOf(row.expired_url);
  const targeting: RuleRedirects | null =
    typeof row.rule_redirects === 'string'
      ? (JSON.parse(row.rule_redirects) as RuleRedirects)
      : row.rule_redirects;
  if (targeting?.ios) controls.ios = locationOf(targeting.ios);
  if (targeting?.android) controls.android = locationOf(targeting.android);
  if (targeting?.geo) {
    controls.geo = Object.fromEntries(
      Object.entries(targeting.geo).map(([country, url]) => [country, locationOf(url)]),
    );
  }
  if (row.password_hash !== null) controls.password = row.password_hash;
  return Object.keys(controls).length > 0 ? controls : null;
}

/** The redirect path's reads, taken only on a cache miss; locations come out header-safe (locationOf). */
@Injectable()
export class RedirectsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The links of these svc_ids that exist, in one query (uq_links_svc_id): a turn's misses are read
   * together (LinkLoader). A link without controls gets no `controls` (LinkTarget).
   */
  async findLinkTargets(svcIds: readonly string[]): Promise<Map<string, LinkTarget>> {
    const rows: LinkRow[] = await this.dataSource.query(
      `SELECT id, project_id, svc_id, redirect_url, expires_at, max_clicks, expired_url, disabled,
              rule_redirects, password_hash
       FROM links WHERE svc_id = ANY($1::text[])`,
      [svcIds],
    );
    const found = new Map<string, LinkTarget>();
    for (const row of rows) {
      const target: LinkTarget = {
        linkId: String(row.id),
        projectId: row.project_id,
        svcId: row.svc_id,
        redirectUrl: locationOf(row.redirect_url),
      };
      const controls = redirectControls(row);
      if (controls) target.controls = controls;
      found.set(row.svc_id, target);
    }
    return found;
  }

  /** How many links there are: the size the filter of existing svc_ids is built for. */
  async countLinks(): Promise<number> {
    const rows: { n: string | number }[] = await this.dataSource.query(
      `SELECT count(*) AS n FROM links`,
    );
    return Number(rows[0].n);
  }

  /**
   * A page of svc_ids in their order, after `after` (keyset on uq_links_svc_id: each page an
   * index range, however far the stream has gone).
   */
  async svcIdsAfter(after: string | null, limit: number): Promise<string[]> {
    const rows: { svc_id: string }[] =
      after === null
        ? await this.dataSource.query(`SELECT svc_id FROM links ORDER BY svc_id LIMIT $1`, [limit])
        : await this.dataSource.query(
            `SELECT svc_id FROM links WHERE svc_id > $1 ORDER BY svc_id LIMIT $2`,
            [after, limit],
          );
    return rows.map((row) => row.svc_id);
  }

  /** Uses pk_projects. */
  async findProjectTarget(projectId: string): Promise<ProjectTarget> {
    const rows: {
      deleted_at: Date | null;
      conversions_enabled: boolean;
      conversion_domains: 'all' | string[];
    }[] = await this.dataSource.query(
      `SELECT deleted_at, conversions_enabled, conversion_domains FROM projects WHERE id = $1`,
      [projectId],
    );
    const row = rows[0];
    if (!row) return { live: false, conversions: null };
    return {
      live: row.deleted_at === null,
      conversions: row.conversions_enabled ? row.conversion_domains : null,
    };
  }

  /** The host's own domain and its segment domains (uq_domains_hostname; LIKE on its prefix). */
  async findHostDomains(host: string): Promise<HostDomains | null> {
    const rows: { hostname: string; root_redirect: string; not_found_redirect: string }[] =
      await this.dataSource.query(
        `SELECT hostname, root_redirect, not_found_redirect FROM domains
       WHERE hostname = $1 OR (hostname LIKE $2 AND hostname > $3 AND hostname < $4)`,
        [host, `${host}\\_%`, `${host}_`, `${host}_\uffff`],
      );
    if (rows.length === 0) return null;
    const domains: HostDomains = { own: null, segments: {} };
    for (const row of rows) {
      const redirects = {
        rootRedirect: locationOf(row.root_redirect),
        notFoundRedirect: locationOf(row.not_found_redirect),
      };
      if (row.hostname === host) domains.own = redirects;
      else domains.segments[row.hostname.slice(host.length + 1)] = redirects;
    }
    return domains;
  }
}
